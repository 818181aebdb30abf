package report

import (
	"strings"
	"testing"

	"github.com/commlab/commlab/doctor"
)

// TestPageOfRecorded holds the page's shape: its title, the questions in a
// raw HTML block, and the checks table last but for the Flight Recorder.
// The HTML it becomes is held in package cells (DoctorPage).
func TestPageOfRecorded(t *testing.T) {
	ev, err := doctor.Recorded("h200x2")
	if err != nil {
		t.Fatal(err)
	}
	r := doctor.Diagnose(ev)
	p := PageOf(r)
	if !strings.HasPrefix(p.Title, "commlab doctor") {
		t.Errorf("title %q", p.Title)
	}
	var raw, md strings.Builder
	for _, b := range p.Blocks {
		if b.Raw {
			raw.WriteString(b.Source)
		} else {
			md.WriteString(b.Source)
		}
	}
	for _, q := range doctor.Questions {
		if !strings.Contains(raw.String(), strings.ReplaceAll(q, "'", "&#39;")) {
			t.Errorf("page lacks the question %q", q)
		}
	}
	for _, want := range []string{"## The evidence", "## The checks, layer by layer", "## Flight Recorder"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("page lacks the heading %q", want)
		}
	}
}
