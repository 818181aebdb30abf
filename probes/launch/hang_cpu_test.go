package launch_test

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/commlab/commlab/parse/flightrec"
	"github.com/commlab/commlab/parse/hanglab"
	"github.com/commlab/commlab/probes/launch"
	"github.com/commlab/commlab/probes/recorded"
)

// hangExpect is what a scenario's run must leave: the Flight Recorder
// finding commlab's analysis names (none when the ranks die before they
// can dump: gloo aborts the process on an all_reduce of different sizes).
var hangExpect = map[string]struct {
	finding  string
	dumps    bool
	nproc    int    // ranks the scenario starts by default
	recorded string // the recorded CPU run of it
	// pyspyOutside: the recorded run took py-spy's stacks outside the
	// driver (its summary has no py_spy part)
	pyspyOutside bool
}{
	"size":      {dumps: false, nproc: 2, recorded: "hang-cpu-size"},
	"order":     {finding: flightrec.FindingOpMismatch, dumps: true, nproc: 2, recorded: "hang-cpu-order"},
	"count":     {finding: flightrec.FindingMissing, dumps: true, nproc: 2, recorded: "hang-cpu-count"},
	"unpaired":  {finding: flightrec.FindingMissing, dumps: true, nproc: 2, recorded: "hang-cpu-unpaired"}, // gloo records no send: rank 0 never reaches all_reduce #2
	"two_comms": {finding: flightrec.FindingCrossGroup, dumps: true, nproc: 2, recorded: "hang-cpu-two_comms"},
	// every rank in one place: a rank frozen inside the collective (a cut
	// link) leaves every rank's dump ending there; a killed rank makes
	// torchrun stop the others before anyone dumps
	"netcut": {finding: flightrec.FindingAllStuck, dumps: true, nproc: 4, recorded: "hang-netcut", pyspyOutside: true},
	"killed": {dumps: false, nproc: 4, recorded: "hang-killed", pyspyOutside: true},
}

// TestHangLabOnCPU stages the hang lab's scenarios for real on gloo CPU
// ranks with the python3 on PATH (make hang-cpu puts a venv with torch and
// py-spy first), then reads each run back with hanglab and flightrec: the
// dumps parse and name the scenario's fault, every rank's stack is there
// (py-spy's stacks/rankN.txt beside faulthandler's stacks/rank_N.txt, or
// the reason py-spy could not read them). COMMLAB_HANG_SCENARIOS picks the
// scenarios (default: order), COMMLAB_HANG_OUT keeps the runs. It skips
// without torch, unless COMMLAB_REQUIRE_TORCH is set.
func TestHangLabOnCPU(t *testing.T) {
	if err := launch.TorchAvailable(context.Background()); err != nil {
		if os.Getenv("COMMLAB_REQUIRE_TORCH") != "" {
			t.Fatalf("%v (make hang-cpu installs torch in a venv)", err)
		}
		t.Skipf("%v (make hang-cpu installs torch in a venv and runs this)", err)
	}
	scenarios := strings.Fields(os.Getenv("COMMLAB_HANG_SCENARIOS"))
	if len(scenarios) == 0 {
		scenarios = []string{"order"}
	}
	out := os.Getenv("COMMLAB_HANG_OUT")
	if out == "" {
		out = t.TempDir()
	}
	for _, sc := range scenarios {
		t.Run(sc, func(t *testing.T) {
			if _, ok := hangExpect[sc]; !ok {
				t.Fatalf("no expectation for scenario %q", sc)
			}
			dir := filepath.Join(out, sc)
			if err := os.RemoveAll(dir); err != nil {
				t.Fatal(err)
			}
			var log strings.Builder
			if err := launch.RunHangLab(context.Background(), launch.HangOptions{Scenario: sc, Out: dir}, &log, &log); err != nil {
				t.Fatalf("hang lab: %v\n%s", err, log.String())
			}
			t.Logf("%s", log.String())
			checkHangRun(t, sc, os.DirFS(dir), false)
		})
	}
}

// TestRecordedHangLabOnCPU reads the recorded CPU runs (make hang-cpu with
// torch 2.15 from the index, probes/recorded/hang/hang-cpu-*) as
// TestHangLabOnCPU reads a live one, so the readers keep up with that
// torch's dumps and py-spy's text without torch installed.
func TestRecordedHangLabOnCPU(t *testing.T) {
	for sc := range hangExpect {
		t.Run(sc, func(t *testing.T) {
			fsys, err := recorded.HangLab(hangExpect[sc].recorded)
			if err != nil {
				t.Fatal(err)
			}
			checkHangRun(t, sc, fsys, true)
		})
	}
}

// checkHangRun holds a run of scenario sc to hangExpect: the summary, the
// dumps and their finding, and every rank's stacks.
func checkHangRun(t *testing.T, sc string, fsys fs.FS, recordedRun bool) {
	t.Helper()
	want := hangExpect[sc]
	lab, err := hanglab.Load(fsys)
	if err != nil {
		t.Fatal(err)
	}
	if lab.Scenario != sc || lab.NProc != want.nproc {
		t.Errorf("summary: scenario %q, %d ranks", lab.Scenario, lab.NProc)
	}
	if want.dumps != (len(lab.Dumps) == lab.NProc) {
		t.Errorf("%d dumps of %d ranks", len(lab.Dumps), lab.NProc)
	}
	if want.finding != "" {
		a := lab.Analysis()
		var kinds []string
		for _, f := range a.Findings {
			kinds = append(kinds, f.Kind)
		}
		for _, g := range a.Groups {
			for _, f := range g.Findings {
				kinds = append(kinds, f.Kind)
			}
		}
		// the hang lab's own reading joins the dumps with the stacks and
		// the processes' ends (every rank stuck in one place is read so)
		kinds = append(kinds, lab.Culprit().Kind)
		if !slices.Contains(kinds, want.finding) {
			t.Errorf("findings %v lack %s; verdict %q", kinds, want.finding, a.Verdict)
		}
	}
	if recordedRun && want.pyspyOutside {
		// recorded by a script that took py-spy's stacks from outside the
		// driver: the stacks are there, the driver's summary has none
		stacks, _ := hanglab.LoadStacks(fsys, "stacks")
		if len(stacks) == 0 {
			t.Errorf("no stacks in the run")
		}
		return
	}
	checkPySpy(t, fsys, lab, want.dumps)
	checkGDB(t, fsys, lab, recordedRun)
}

// checkGDB: where gdb is installed (or the recorded run used it), every
// rank py-spy read alive has gdb's C++ stack too, with a thread in
// communication code; a rank gdb could not attach to (ptrace refused)
// skips that check with the reason.
func checkGDB(t *testing.T, fsys fs.FS, lab *hanglab.Lab, recordedRun bool) {
	t.Helper()
	var summary struct {
		GDB *struct {
			Error string `json:"error"`
			Ranks map[string]struct {
				Exit  any    `json:"exit"`
				Error string `json:"error"`
			} `json:"ranks"`
		} `json:"gdb"`
	}
	b, err := fs.ReadFile(fsys, "summary.json")
	if err == nil {
		err = json.Unmarshal(b, &summary)
	}
	if err != nil {
		t.Fatal(err)
	}
	if _, err := exec.LookPath("gdb"); err != nil && !recordedRun {
		t.Logf("gdb not installed: no C++ stacks to check (%v)", err)
		return
	}
	if summary.GDB == nil {
		if !recordedRun {
			t.Errorf("gdb is installed, the driver's summary has no gdb part")
		}
		return // recorded before the driver ran gdb
	}
	if summary.GDB.Error != "" {
		t.Fatalf("gdb did not run: %s", summary.GDB.Error)
	}
	for _, s := range lab.Stacks {
		if s.Source != "py-spy" || len(s.Threads) == 0 {
			continue // a rank py-spy did not find running
		}
		r := summary.GDB.Ranks[itoa(s.Rank)]
		if r.Exit == "ptrace refused" {
			t.Logf("rank %d: gdb could not attach, its C++ stack not checked: %s", s.Rank, r.Error)
			continue
		}
		g, ok := lab.GDBOf(s.Rank)
		if !ok || len(g.Threads) == 0 {
			t.Errorf("rank %d: hung, and no gdb stack (%v: %s)", s.Rank, r.Exit, r.Error)
			continue
		}
		if len(g.Waits()) == 0 {
			t.Errorf("rank %d: gdb's stack has no thread in communication code:\n%s", s.Rank, g)
		}
	}
}

// checkPySpy: the driver says what py-spy did for each rank; where it
// read a rank, stacks/rankN.txt holds a Python stack in the hang lab's
// frames; where the ranks lived, faulthandler's stacks are there too.
func checkPySpy(t *testing.T, fsys fs.FS, lab *hanglab.Lab, alive bool) {
	t.Helper()
	var summary struct {
		PySpy struct {
			Error   string                     `json:"error"`
			Version string                     `json:"version"`
			Ranks   map[string]json.RawMessage `json:"ranks"`
		} `json:"py_spy"`
	}
	b, err := fs.ReadFile(fsys, "summary.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &summary); err != nil {
		t.Fatal(err)
	}
	if summary.PySpy.Error != "" {
		t.Fatalf("py-spy did not run: %s", summary.PySpy.Error)
	}
	if len(summary.PySpy.Ranks) != lab.NProc {
		t.Errorf("py-spy: %d ranks reported of %d: %s", len(summary.PySpy.Ranks), lab.NProc, b)
	}
	stacks, skipped := hanglab.LoadStacks(fsys, "stacks")
	for _, s := range skipped {
		// A rank torchrun ended with SIGTERM before any dump leaves its
		// faulthandler file empty; anything else must read.
		name, _, _ := strings.Cut(s, ":")
		if fi, err := fs.Stat(fsys, name); err != nil || fi.Size() > 0 {
			t.Errorf("stack file not read: %s", s)
		}
	}
	pyspy := 0
	for _, s := range stacks {
		if s.Source == "py-spy" && len(s.Threads) > 0 {
			pyspy++
			if f := s.Where(); f.Func == "" {
				t.Errorf("rank %d: py-spy stack without a frame: %+v", s.Rank, s)
			}
		}
	}
	if alive && pyspy != lab.NProc {
		t.Errorf("py-spy read %d of %d ranks: %s", pyspy, lab.NProc, b)
	}
	for r := 0; r < lab.NProc; r++ {
		if _, err := fs.Stat(fsys, "stacks/rank_"+itoa(r)+".txt"); err != nil {
			t.Errorf("faulthandler's stack of rank %d: %v", r, err)
		}
	}
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }
