package doctor

import (
	"strings"
	"testing"

	"github.com/commlab/commlab/parse/nccllog"
)

// A large job's log keeps its first WARN lines and counts the rest
// (nccllog's Omitted): the doctor prints the log's total, not the kept
// number.
func TestWarningCountsAreTotals(t *testing.T) {
	kept := []nccllog.Message{}
	for range 10 {
		kept = append(kept, nccllog.Message{Source: nccllog.Source{Host: "gpu1", PID: 7}, Text: "some plugin said something odd"})
	}
	lg := &nccllog.Log{NCCLLines: 5000, Warnings: kept, Omitted: map[string]int{"warnings": 4990}}
	v := checkNCCLWarnings(lg)
	if !strings.Contains(v.Summary, "5000 NCCL WARN line(s)") {
		t.Errorf("summary %q: want the total 5000", v.Summary)
	}
	if got := strings.Join(v.Evidence, "\n"); !strings.Contains(got, "... 4992 more WARN lines") {
		t.Errorf("evidence lacks the total of the rest:\n%s", got)
	}
	ev := &Evidence{NCCLLog: lg}
	if got := strings.Join(ncclWarnLines(ev, 3), "\n"); !strings.Contains(got, "... 4997 more NCCL WARN lines") {
		t.Errorf("hang evidence lacks the total of the rest:\n%s", got)
	}
}
