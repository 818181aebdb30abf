package launch_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/commlab/commlab/probes/launch"
)

func TestCommand(t *testing.T) {
	tests := []struct {
		o       launch.Options
		program string
		want    string
	}{
		{launch.Options{Launcher: "none"}, "all_reduce_perf", "all_reduce_perf -b 8"},
		{launch.Options{}, "all_reduce_perf", "all_reduce_perf -b 8"},
		{launch.Options{Launcher: "mpirun", Hostfile: "hosts", Procs: 16, PerNode: 8, Env: []string{"NCCL_PROTO=LL"}}, "all_reduce_perf",
			"mpirun --hostfile hosts -np 16 --map-by ppr:8:node --bind-to none -x NCCL_PROTO all_reduce_perf -b 8"},
		{launch.Options{Launcher: "srun", Procs: 16, PerNode: 8, Nodes: 2}, "all_reduce_perf", "srun -N 2 -n 16 --ntasks-per-node 8 --export=ALL all_reduce_perf -b 8"},
		{launch.Options{Launcher: "torchrun", PerNode: 8, Nodes: 2}, "bench_torch.py", "torchrun --nnodes 2 --nproc-per-node 8 bench_torch.py -b 8"},
	}
	for _, tc := range tests {
		got, err := launch.Command(tc.o, tc.program, []string{"-b", "8"})
		if err != nil || strings.Join(got, " ") != tc.want {
			t.Errorf("%s: %q, %v; want %q", tc.o.Launcher, strings.Join(got, " "), err, tc.want)
		}
	}
	for _, bad := range []launch.Options{{Launcher: "torchrun", PerNode: 8, Nodes: 1}, {Launcher: "pdsh"}, {Launcher: "mpirun", Env: []string{"NOEQUALS"}}} {
		if _, err := launch.Command(bad, "all_reduce_perf", nil); err == nil || !strings.HasPrefix(err.Error(), "launch: ") {
			t.Errorf("launcher %s: %v", bad.Launcher, err)
		}
	}
}

func TestShellJoin(t *testing.T) {
	got := launch.ShellJoin([]string{"all_reduce_perf", "-b", "8", "", "a b", "it's"})
	if want := `all_reduce_perf -b 8 '' 'a b' 'it'\''s'`; got != want {
		t.Errorf("ShellJoin = %s, want %s", got, want)
	}
}

func TestToolRunKeepsOutputAndFailure(t *testing.T) {
	tool := filepath.Join(t.TempDir(), "fake_perf")
	if err := os.WriteFile(tool, []byte("#!/bin/sh\necho \"$@ $COMMLAB_TEST_VAR\"\nexit 3\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	run, err := launch.Tool{Kind: "fake", Program: tool, Args: []string{"-b", "8"}, Options: launch.Options{Launcher: "none", Env: []string{"COMMLAB_TEST_VAR=x"}}}.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if run.Kind != "fake" || run.Logs["output"] != "-b 8 x\n" || run.Env["COMMLAB_TEST_VAR"] != "x" || !strings.Contains(run.Error, "exit status 3") ||
		strings.Join(run.Command, " ") != tool+" -b 8" || run.Settings["launcher"] != "none" || run.Settings["tool"] != tool {
		t.Errorf("run %+v", run)
	}
	_, err = launch.Tool{Kind: "fake", Program: "commlab-no-such-tool"}.Run(context.Background())
	if !errors.Is(err, launch.ErrNotInstalled) || !strings.Contains(err.Error(), "commlab-no-such-tool") {
		t.Errorf("missing tool: %v", err)
	}
}

func TestTorchBench(t *testing.T) {
	if src := string(launch.TorchBench.Source()); !strings.Contains(src, `p.add_argument("--out", required=True)`) {
		t.Error("the embedded script is not bench_torch.py")
	}
	got, err := launch.TorchBench.Command(launch.Options{}, "/tmp/b.py", []string{"--what", "copy"})
	if err != nil || strings.Join(got, " ") != "python3 /tmp/b.py --what copy" {
		t.Errorf("python3: %q, %v", got, err)
	}
	got, err = launch.TorchBench.Command(launch.Options{Launcher: "torchrun", PerNode: 8}, "/tmp/b.py", nil)
	if err != nil || strings.Join(got, " ") != "torchrun --nproc-per-node 8 /tmp/b.py" {
		t.Errorf("torchrun: %q, %v", got, err)
	}
	if _, err := launch.TorchBench.Command(launch.Options{Launcher: "srun"}, "/tmp/b.py", nil); err == nil {
		t.Error("srun accepted")
	}
}

func TestStart(t *testing.T) {
	var out, errb strings.Builder
	p, err := launch.Start(t.Context(), launch.Options{}, "sh", []string{"-c", "echo out; echo err >&2; exit 3"}, &out, &errb)
	if err != nil {
		t.Fatal(err)
	}
	code, err := p.Wait()
	if code != 3 || err != nil || out.String() != "out\n" || errb.String() != "err\n" || p.Cmdline[0] != "sh" {
		t.Errorf("exit %d, %v, stdout %q, stderr %q, cmdline %q", code, err, out.String(), errb.String(), p.Cmdline)
	}
	if _, err := launch.Start(t.Context(), launch.Options{}, "commlab-no-such-program", nil, &out, &errb); !errors.Is(err, launch.ErrNotInstalled) {
		t.Errorf("missing program: %v", err)
	}
}
