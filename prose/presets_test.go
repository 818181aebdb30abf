package prose_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/commlab/commlab/costmodel"
	"github.com/commlab/commlab/prose"
)

func TestPresets(t *testing.T) {
	got := prose.Presets([]costmodel.Preset{
		{Name: "n1", Kind: "node", Description: "a node", Sources: []string{"s1", "s2", "s3"}},
		{Name: "l1", Kind: "pcie", Description: "a link", Sources: []string{"s4"}},
		{Name: "n2", Kind: "node", Description: "another node"},
	})
	for _, want := range []string{
		"3 presets (2 of kind node, 1 of kind pcie), each with its first source and how many more it has.",
		"<details><summary>The whole list (click to show)</summary>",
		"s1 (+2 more)", "| l1", "s4 |", "</details>",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}
	if strings.Contains(got, "s2") {
		t.Errorf("a source after the first is shown:\n%s", got)
	}
}

func ExamplePresets() {
	page := prose.Presets(costmodel.Presets())
	summary, _, _ := strings.Cut(page, "\n")
	fmt.Println(strings.HasPrefix(summary, fmt.Sprintf("%d presets (", len(costmodel.Presets()))), strings.Contains(page, "<details>"))
	// Output:
	// true true
}
