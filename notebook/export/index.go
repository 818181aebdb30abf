package export

import (
	"bytes"
	"fmt"
	"html"
	"io"
	"strings"
	"time"

	"github.com/commlab/commlab/notebook"
	"github.com/commlab/commlab/units"
)

// Run is what lab's runner recorded in a notebook's metadata
// (metadata.commlab.run); the zero value means the notebook was not run.
type Run struct {
	Status   string // "ok", "errors", "failed", "stopped"
	Started  string
	Duration time.Duration
	Executed int
	Cells    int
	Error    string
}

// RunOf reads the run record of an executed notebook.
func RunOf(nb *notebook.Notebook) Run {
	meta, _ := nb.Metadata[notebook.CommlabKey].(map[string]any)
	run, _ := meta["run"].(map[string]any)
	if run == nil {
		return Run{}
	}
	num := func(k string) float64 {
		switch v := run[k].(type) {
		case float64:
			return v
		case int:
			return float64(v)
		}
		return 0
	}
	r := Run{Duration: time.Duration(num("duration_s") * float64(time.Second)), Executed: int(num("executed")), Cells: int(num("cells"))}
	r.Status, _ = run["status"].(string)
	r.Started, _ = run["started"].(string)
	r.Error, _ = run["error"].(string)
	return r
}

// Summary is one line about the run.
func (r Run) Summary() string {
	if r.Status == "" {
		return "not run"
	}
	s := fmt.Sprintf("%s: %d of %d code cells in %s, started %s", r.Status, r.Executed, r.Cells, units.Duration(r.Duration.Seconds()), startedText(r.Started))
	if r.Error != "" {
		s += "; " + r.Error
	}
	return s
}

// Entry is one row of the index.
type Entry struct {
	Title string
	Href  string // the page, relative to the index
	Run   Run
}

// Index writes a page listing the entries with status and run time, then
// the series' reading paths (ReadingPaths): an entry whose page is named
// NN-slug.html is chapter NN, and the paths link it.
func Index(w io.Writer, title string, entries []Entry) error {
	var total time.Duration
	var b bytes.Buffer
	fmt.Fprintf(&b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>%s</title>\n<style>\n%s</style>\n</head>\n<body>\n<main>\n<h1>%s</h1>\n",
		html.EscapeString(title), pageCSS, html.EscapeString(title))
	fmt.Fprint(&b, "<table>\n<thead><tr><th>chapter</th><th>status</th><th>run time</th><th>cells</th><th>started</th></tr></thead>\n<tbody>\n")
	for _, e := range entries {
		status := e.Run.Status
		if status == "" {
			status = "not run"
		}
		total += e.Run.Duration
		fmt.Fprintf(&b, "<tr><td><a href=\"%s\">%s</a></td><td class=\"status-%s\">%s</td><td>%s</td><td>%d/%d</td><td class=\"nowrap\">%s</td></tr>\n",
			html.EscapeString(e.Href), html.EscapeString(e.Title), strings.ReplaceAll(html.EscapeString(status), " ", "-"), html.EscapeString(status),
			units.Duration(e.Run.Duration.Seconds()), e.Run.Executed, e.Run.Cells, html.EscapeString(startedText(e.Run.Started)))
	}
	noun := "notebooks"
	if len(entries) == 1 {
		noun = "notebook"
	}
	fmt.Fprintf(&b, "</tbody>\n</table>\n<p>%d %s, %s in total.</p>\n", len(entries), noun, units.Duration(total.Seconds()))
	writePaths(&b, entries)
	fmt.Fprint(&b, "</main>\n</body>\n</html>\n")
	_, err := w.Write(polish(b.Bytes(), Chapters{}, -1))
	return err
}

// startedText writes an RFC 3339 start time as a reader reads it, to the
// second in its own zone: "2026-12-01 10:00:05 UTC".
func startedText(s string) string {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return s
	}
	zone := t.Format("MST")
	if zone == "" || strings.HasPrefix(zone, "+") || strings.HasPrefix(zone, "-") {
		zone = t.Format("-07:00")
	}
	return t.Format("2006-01-02 15:04:05") + " " + zone
}
