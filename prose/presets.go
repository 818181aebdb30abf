package prose

import (
	"fmt"
	"strings"

	"github.com/commlab/commlab/costmodel"
)

// Presets writes the cost model's presets (costmodel.Presets) as Markdown:
// one line that counts them by kind, then the table of them folded under
// it (name, kind, what it is, its first source and how many more it has),
// for a page that lists every preset without showing fifty rows.
func Presets(presets []costmodel.Preset) string {
	t := NewTable("preset", "kind", "what it is", "sources")
	count, order := map[string]int{}, []string{}
	for _, p := range presets {
		src := ""
		if len(p.Sources) > 0 {
			src = p.Sources[0]
			if len(p.Sources) > 1 {
				src += fmt.Sprintf(" (+%d more)", len(p.Sources)-1)
			}
		}
		t.Row(p.Name, p.Kind, p.Description, src)
		if count[p.Kind]++; count[p.Kind] == 1 {
			order = append(order, p.Kind)
		}
	}
	kinds := make([]string, len(order))
	for i, k := range order {
		kinds[i] = fmt.Sprintf("%d of kind %s", count[k], k)
	}
	return fmt.Sprintf("%d presets (%s), each with its first source and how many more it has.\n\n<details><summary>The whole list (click to show)</summary>\n\n%s\n</details>",
		t.Len(), strings.Join(kinds, ", "), t.Markdown())
}
