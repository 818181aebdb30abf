package doctor_test

import (
	"strings"
	"testing"

	"github.com/commlab/commlab/doctor"
	"github.com/commlab/commlab/parse/hanglab"
	"github.com/commlab/commlab/probes/recorded"
)

// The recorded network cut (gloo, four CPU ranks, rank 2 frozen inside
// all_reduce #3000): the dumps alone end alike on every rank, so they
// cannot tell a hang from a finished step and say so, asking for the
// stacks; with the stacks every rank is inside the collective, the
// same-place branch.
func TestCheckHangSamePlaceFromStacks(t *testing.T) {
	fsys, err := recorded.HangLab("hang-netcut")
	if err != nil {
		t.Fatal(err)
	}
	lab, err := hanglab.Load(fsys)
	if err != nil {
		t.Fatal(err)
	}
	v, _ := doctor.CheckHang(&doctor.Evidence{FlightRecorder: lab.Dumps})
	if v.Status != doctor.Skipped || !strings.HasPrefix(v.Summary, "cannot tell:") || !strings.Contains(v.Summary, "give the ranks' stacks") {
		t.Errorf("dumps alone: %s %s", v.Status, v.Summary)
	}
	v, _ = doctor.CheckHang(&doctor.Evidence{FlightRecorder: lab.Dumps, Stacks: lab.Stacks})
	if v.Status != doctor.Fail || v.Branch != doctor.BranchHangSame {
		t.Fatalf("with stacks: %s branch %q: %s", v.Status, v.Branch, v.Summary)
	}
	for _, w := range []string{"every rank (0-3)", "all_reduce #3000", "inside it (all_reduce (distributed_c10d.py:3075))", "network or a dead rank"} {
		if !strings.Contains(v.Summary, w) {
			t.Errorf("summary lacks %q: %s", w, v.Summary)
		}
	}
	if !strings.Contains(v.Next, "ibstat") {
		t.Errorf("next: %s", v.Next)
	}
	// One rank's stack outside torch.distributed: not every rank is in
	// the collective, so the stacks prove nothing either, and the verdict
	// names the rank outside.
	stacks := append([]hanglab.Stack(nil), lab.Stacks...)
	for i := range stacks {
		if stacks[i].Rank == 1 {
			stacks[i] = hanglab.ParseStack(1, "Current thread 0x1 (most recent call first):\n  File \"/x/train.py\", line 9 in load_batch\n")
		}
	}
	if v, _ := doctor.CheckHang(&doctor.Evidence{FlightRecorder: lab.Dumps, Stacks: stacks}); v.Status != doctor.Skipped || !strings.Contains(v.Summary, "rank 1 at load_batch elsewhere") {
		t.Errorf("one rank outside: %s %s", v.Status, v.Summary)
	}
}
