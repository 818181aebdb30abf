package export

import (
	"fmt"
	"html"
	"io"
	"path"
	"strconv"
	"strings"
)

// SeriesChapters names the series' seven chapters by number, short and in
// English (the pages' own titles carry the Chinese too), so that a reading
// path can name a chapter that is not written yet.
var SeriesChapters = map[int]string{
	1: "Collectives and the cost model",
	2: "Interconnect hardware",
	3: "RDMA and GPUDirect",
	4: "NCCL architecture",
	5: "PyTorch's communication stack",
	6: "nccl-tests, tuning and troubleshooting",
	7: "Communication in inference",
}

// ReadingPath is one order through the chapters for one kind of reader.
type ReadingPath struct {
	Name     string
	Purpose  string // one line: who takes this path and what it gives them
	Chapters []int  // in reading order
	Optional []int  // may be read after the path
	Note     string // why the optional chapters help
}

// ReadingPaths are the series outline's suggested reading paths (阅读路径建议),
// in its order.
var ReadingPaths = []ReadingPath{
	{
		Name:     "Full",
		Purpose:  "Every chapter in order: the cost model, the hardware under it, then each layer of software above.",
		Chapters: []int{1, 2, 3, 4, 5, 6, 7},
	},
	{
		Name:     "Training",
		Purpose:  "Multi-node training performance and stability.",
		Chapters: []int{1, 2, 3, 4, 5, 6},
		Optional: []int{7},
		Note:     "its custom all-reduce section explains NCCL's fixed overhead on small messages.",
	},
	{
		Name:     "Inference",
		Purpose:  "TP latency and prefill/decode disaggregation: cost model and topology, NCCL, then inference; RDMA when KV transfer needs it, tuning when something goes wrong.",
		Chapters: []int{1, 2, 4, 7, 3, 6},
	},
	{
		Name:     "Platform and cluster",
		Purpose:  "Running the network and the scheduler: topology, RDMA setup, nccl-tests acceptance and troubleshooting; chapters 1 and 4 explain what engines ask of topology and affinity.",
		Chapters: []int{2, 3, 6, 1, 4},
	},
	{
		Name:     "Just debug a hang or a slow job",
		Purpose:  "Chapter 6's decision tree works on its own; chapters 4 and 5 explain why it says what it says.",
		Chapters: []int{6, 4, 5},
	},
}

// ChapterNumber reads the NN of a chapter named NN-slug (a file or page
// name, with or without folder and extension); ok is false for other names.
func ChapterNumber(name string) (n int, ok bool) {
	base := path.Base(strings.ReplaceAll(name, "\\", "/"))
	if len(base) < 3 || !isDigit(base[0]) || !isDigit(base[1]) || base[2] != '-' {
		return 0, false
	}
	return int(base[0]-'0')*10 + int(base[1]-'0'), true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// writePaths writes the reading paths, linking each chapter that has an
// entry (the first entry of its number) and naming the others as plain
// text.
func writePaths(w io.Writer, entries []Entry) {
	pages := map[int]Entry{}
	for _, e := range entries {
		if n, ok := ChapterNumber(e.Href); ok {
			if _, seen := pages[n]; !seen {
				pages[n] = e
			}
		}
	}
	step := func(n int) string {
		label := strconv.Itoa(n)
		if name, ok := SeriesChapters[n]; ok {
			label += " " + name
		}
		if e, ok := pages[n]; ok {
			return fmt.Sprintf(`<a href="%s" title="%s">%s</a>`, html.EscapeString(e.Href), html.EscapeString(e.Title), html.EscapeString(label))
		}
		return fmt.Sprintf(`<span class="unwritten" title="no page in this folder">%s</span>`, html.EscapeString(label))
	}
	intro := "The series outline's suggested orders."
	for n := range SeriesChapters {
		if _, ok := pages[n]; !ok {
			intro += " Chapters without a page in this folder (not run into it, or not written yet) are named without a link."
			break
		}
	}
	fmt.Fprint(w, "<h2>Reading paths</h2>\n<p>"+intro+"</p>\n<dl class=\"paths\">\n")
	for _, p := range ReadingPaths {
		steps := make([]string, len(p.Chapters))
		for i, n := range p.Chapters {
			steps[i] = step(n)
		}
		fmt.Fprintf(w, "<dt>%s</dt>\n<dd><p>%s</p>\n<p class=\"path\">%s</p>\n", html.EscapeString(p.Name), html.EscapeString(p.Purpose), strings.Join(steps, " → "))
		if len(p.Optional) > 0 {
			opt := make([]string, len(p.Optional))
			for i, n := range p.Optional {
				opt[i] = step(n)
			}
			fmt.Fprintf(w, "<p class=\"optional\">Optional: %s: %s</p>\n", strings.Join(opt, ", "), html.EscapeString(p.Note))
		}
		fmt.Fprint(w, "</dd>\n")
	}
	fmt.Fprint(w, "</dl>\n")
}
