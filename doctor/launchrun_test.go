package doctor

import (
	"strings"
	"testing"
)

// TestSlurmVerdict reads what srun and slurmstepd print (Slurm 22.05, as
// ci/slurm_test.go saw it) into the cause that stops a plan.
func TestSlurmVerdict(t *testing.T) {
	for _, tc := range []struct {
		name, text, want string
	}{
		{"no such partition", "srun: error: invalid partition specified: nope\nsrun: error: Unable to allocate resources: Invalid partition name specified\n", `no such partition "nope"`},
		{"time limit", "srun: job 13 has been allocated resources\nslurmstepd-node1: error: *** STEP 13.0 ON node1 CANCELLED AT 2026-12-06T08:02:04 DUE TO TIME LIMIT ***\nsrun: error: node1: task 0: Terminated\n", "Slurm cut 13.0 on node1 at 2026-12-06T08:02:04: its time limit"},
		{"refused", "srun: error: Unable to allocate resources: Requested node configuration is not available\n", "Slurm refused the job: Requested node configuration is not available"},
		{"no program", "slurmstepd: error: execve(): all_reduce_perf: No such file or directory\n", "the nodes have no all_reduce_perf on their PATH"},
		{"our own cancel is not the cause", "srun: error: Unable to allocate resources: Job/step already completing or completed\n", ""},
		{"a task's own failure", "srun: error: node2: task 1: Exited with exit code 2\n", ""},
	} {
		if got := slurmVerdict(tc.text); (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("%s: verdict %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestEndStateVerdict reads the controller's end state of a job (squeue
// -t all, or sacct) into the cause, where srun's own lines named none.
func TestEndStateVerdict(t *testing.T) {
	for _, tc := range []struct {
		name, line, want string
	}{
		{"time limit (squeue, Slurm 22.05)", "2|TIMEOUT|TimeLimit|node[1-2]", "Slurm ended job 2 on node[1-2] in state TIMEOUT: its time limit"},
		{"still completing, cut", "2|COMPLETING|TimeLimit|node[1-2]", "in state TIMEOUT"},
		{"still completing, its own end", "2|COMPLETING|None|node[1-2]", ""},
		{"cancelled (sacct)", "7|CANCELLED by 1000||node1", "job 7 on node1 in state CANCELLED (reason not known): scancel"},
		{"out of memory", "9|OUT_OF_MEMORY|OutOfMemory|node3", "state OUT_OF_MEMORY"},
		{"completed is the tasks' own end", "1|COMPLETED|None|node[1-2]", ""},
		{"failed is the tasks' own end", "3|FAILED|NonZeroExitCode|node1", ""},
		{"not a line", "squeue: error: Invalid user", ""},
		{"nothing", "", ""},
	} {
		if got := endStateVerdict(tc.line); (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("%s: verdict %q, want %q", tc.name, got, tc.want)
		}
	}
}

// FuzzSlurmVerdicts holds that no text srun prints and no controller line
// makes either reader panic.
func FuzzSlurmVerdicts(f *testing.F) {
	f.Add("slurmstepd-node1: error: *** STEP 13.0 ON node1 CANCELLED AT 2026-12-06T08:02:04 DUE TO TIME LIMIT ***\n")
	f.Add("2|TIMEOUT|TimeLimit|node[1-2]")
	f.Add("|||")
	f.Fuzz(func(t *testing.T, text string) {
		_ = slurmVerdict(text)
		if v := endStateVerdict(text); v != "" && !strings.HasPrefix(v, "Slurm ended job ") {
			t.Errorf("verdict %q does not name the job", v)
		}
	})
}

func TestPlanSharedDirAndSrun(t *testing.T) {
	p, err := Launch{Launcher: "srun", Nodes: 2, PerNode: 1, Out: "/shared/run"}.Plan()
	if err != nil {
		t.Fatal(err)
	}
	if got := p.sharedDir(); got != "/shared/run" {
		t.Errorf("sharedDir %q", got)
	}
	var srun int
	for _, c := range p.Commands {
		if usesSrun(c) {
			srun++
		}
	}
	if srun != 2 || !p.mentions(standInName) {
		t.Errorf("%d srun commands (want the nodes' doctors and the sweep), mentions %s: %v", srun, standInName, p.mentions(standInName))
	}
	if got := withPath([]string{"A=1", "PATH=/bin"}, "/x"); strings.Join(got, " ") != "A=1 PATH=/x:/bin" {
		t.Errorf("withPath: %v", got)
	}
}

// TestPlanCarryPrints holds that without --run the plan goes to stdout
// alone, as commlab doctor --launcher prints it.
func TestPlanCarryPrints(t *testing.T) {
	p, err := Launch{Launcher: "mpirun", Hosts: []string{"a", "b"}, PerNode: 8, Out: "/shared/run"}.Plan()
	if err != nil {
		t.Fatal(err)
	}
	var want, stdout, stderr strings.Builder
	p.WriteText(&want)
	if err := p.Carry(false, &stdout, &stderr); err != nil || stdout.String() != want.String() || stderr.Len() != 0 {
		t.Errorf("Carry(false): %v; stdout %q, stderr %q", err, stdout.String(), stderr.String())
	}
}
