package recorded

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestEveryPublicOutputHasASource(t *testing.T) {
	names := PublicList()
	if len(names) == 0 {
		t.Fatal("no public outputs embedded")
	}
	sources, err := publicSources()
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		p, err := Public(n)
		if err != nil {
			t.Errorf("%s: %v", n, err)
			continue
		}
		if !strings.HasPrefix(p.Source, "https://github.com/") || p.Text == "" || p.Name != n {
			t.Errorf("%s: source %q, %d bytes", n, p.Source, len(p.Text))
		}
		delete(sources, n)
	}
	for file := range sources {
		t.Errorf("README row for %s, which is not embedded", file)
	}
}

// TestPublicMatchesParserFixtures keeps each public output equal to the
// parser fixture of the same name (an NCCL log, or a topology or graph
// file), where its provenance is reviewed.
func TestPublicMatchesParserFixtures(t *testing.T) {
	for _, n := range PublicList() {
		p, err := Public(n)
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(n, ".md") { // a table quoted from a post: no parser reads it (Table does)
			continue
		}
		var found bool
		for _, dir := range []string{"../../parse/nccllog/testdata", "../../parse/nccllog/testdata/public", "../../parse/ncclxml/testdata", "../../parse/nccltests/testdata",
			"../../parse/nccltests/testdata/public", "../../parse/flightrec/testdata/public", "../../parse/torchtrace/testdata/public", "../../parse/nvidiasmi/testdata/topo/public"} {
			b, err := os.ReadFile(filepath.Join(dir, n))
			if err != nil {
				continue
			}
			found = true
			if string(b) != p.Text {
				t.Errorf("%s differs from %s/%s", n, dir, n)
			}
		}
		if !found {
			t.Errorf("%s: no parser fixture of that name", n)
		}
	}
}

func TestPublicTable(t *testing.T) {
	p, err := Public("ncclt123_dgxa100_ring_latency_by_gpus_excerpt.md")
	if err != nil {
		t.Fatal(err)
	}
	rows, err := p.Table()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 8 || rows[0][0] != "GPU_NUM" || rows[0][3] != "actual time (us)" || rows[7][0] != "8" || rows[7][3] != "33.7" {
		t.Errorf("rows = %q", rows)
	}
	if _, err := (PublicOutput{Name: "x", Text: "no table here\n"}).Table(); err == nil {
		t.Error("a text without a table gave no error")
	}
	if _, err := (PublicOutput{Name: "x", Text: "| a | b |\n| - | - |\n| 1 |\n"}).Table(); err == nil {
		t.Error("a short row gave no error")
	}
}

func TestPublicUnknownName(t *testing.T) {
	for _, name := range []string{"nope.log", "README.md", "", "../data/nccl-h200x2-tuning.json"} {
		if _, err := Public(name); !errors.Is(err, ErrNoPublic) {
			t.Errorf("%q: %v, want ErrNoPublic", name, err)
		}
	}
}

func ExamplePublic() {
	p, err := Public("ncclt350_2node_a100_roce_gdr_excerpt.log")
	if err != nil {
		fmt.Println(err)
		return
	}
	first, _, _ := strings.Cut(p.Text, "\n")
	fmt.Println(p.Source)
	fmt.Println(first)
	// Output:
	// https://github.com/NVIDIA/nccl-tests/issues/350
	// n013:101855:101855 [0] NCCL INFO Bootstrap : Using ibp209s0f0:10.128.3.13<0>
}
