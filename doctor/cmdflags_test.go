package doctor

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCurveOnly(t *testing.T) {
	tests := []struct {
		args []string
		want bool
	}{
		{[]string{"--nccl-tests", "f.txt"}, true},
		{[]string{"--nccl-tests=f.txt", "--json", "--preset", "hgx-h200"}, true},
		{[]string{"--nccl-tests", "f.txt", "--out", "dir"}, false},
		{[]string{"--nccl-tests", "f.txt", "--rdma", "gids.txt"}, false},
		{[]string{"--recorded", "h200x2"}, false},
		{[]string{"--", "--nccl-tests"}, false},
	}
	for _, tc := range tests {
		if got := CurveOnly(tc.args); got != tc.want {
			t.Errorf("CurveOnly(%q) = %v", tc.args, got)
		}
	}
}

// TestFlagsNameFullFlags holds fullFlags to the flags AddFlags defines:
// each names one of them, and the curve doctor's own flags (those a curve
// run shares) are not among them.
func TestFlagsNameFullFlags(t *testing.T) {
	fs := flag.NewFlagSet("doctor", flag.ContinueOnError)
	var f Flags
	f.AddFlags(fs)
	for name := range fullFlags {
		if fs.Lookup(name) == nil {
			t.Errorf("fullFlags names --%s, which AddFlags does not define", name)
		}
	}
	for _, name := range []string{"nccl-tests", "json", "quick"} {
		if fullFlags[name] {
			t.Errorf("--%s is in fullFlags: --nccl-tests FILE with it would not run the curve doctor", name)
		}
	}
}

func TestFlagsReadBack(t *testing.T) {
	t.Setenv("COMMLAB_NODE_NAME", "node7")
	tests := []struct {
		args      []string
		out       string
		launching bool
		launch    LaunchSettings
	}{
		{nil, "", false, LaunchSettings{PerNode: 8, Binary: "/bin/commlab"}},
		{[]string{"--out", "d", "--json"}, "d", false, LaunchSettings{Out: "d", JSON: true, PerNode: 8, Binary: "/bin/commlab"}},
		{[]string{"--node-dir", "shared"}, filepath.Join("shared", "node7"), false, LaunchSettings{PerNode: 8, Binary: "/bin/commlab"}},
		{[]string{"--launcher", "srun", "--nodes", "4", "--per-node", "4", "--out", "s", "--hosts", "a,b", "--pairwise"}, "s", true,
			LaunchSettings{Launcher: "srun", Hosts: "a,b", Out: "s", Nodes: "4", PerNode: 4, Pairwise: true, Binary: "/bin/commlab"}},
	}
	for _, tc := range tests {
		fs := flag.NewFlagSet("doctor", flag.ContinueOnError)
		var f Flags
		f.AddFlags(fs)
		if err := fs.Parse(tc.args); err != nil {
			t.Fatal(err)
		}
		if got := f.OutDir(); got != tc.out {
			t.Errorf("%q: OutDir() = %q, want %q", tc.args, got, tc.out)
		}
		if f.Launching() != tc.launching {
			t.Errorf("%q: Launching() = %v", tc.args, f.Launching())
		}
		if got := f.LaunchSettings("/bin/commlab"); got != tc.launch {
			t.Errorf("%q: LaunchSettings =\n %+v, want\n %+v", tc.args, got, tc.launch)
		}
	}
}

// TestCurveFlagsJudge holds what the curve doctor's flags say to the
// judge: a setting the user gave is named as given (--nvls, --network,
// --coll), "-" reads standard input, and the input's errors come back.
func TestCurveFlagsJudge(t *testing.T) {
	const a3 = "../parse/nccltests/testdata/allreduce_h100_2node_a3mega.txt"
	text, err := os.ReadFile(a3)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		args    []string
		exit    int
		want    []string
		wantErr string
	}{
		{"preset, NVLS not told", []string{"--nccl-tests", a3, "--preset", "hgx-h100"}, 1,
			[]string{"16 rank(s), 2 node(s)", "[skipped] collective/multi-node: cannot tell"}, ""},
		{"NVLS told", []string{"--nccl-tests", a3, "--preset", "hgx-h100", "--nvls"}, 1,
			[]string{"[warn] collective/multi-node: multi-node plateau too low: 330.6 GB/s busbw, 69%"}, ""},
		{"network told", []string{"--nccl-tests", a3, "--network", "tcpxo", "--nvls"}, 1,
			[]string{"from --network", "[ok] collective/multi-node: multi-node plateau at 100% of the model"}, ""},
		{"standard input", []string{"--nccl-tests", "-", "--preset", "hgx-h100"}, 1, []string{"(stdin)"}, ""},
		{"single-node missing", []string{"--nccl-tests", a3, "--single-node", "none.txt"}, 0, nil, "--single-node: open none.txt"},
		{"missing file", []string{"--nccl-tests", "none.txt"}, 0, nil, "open none.txt"},
		{"not a curve", []string{"--nccl-tests", "cmdflags.go"}, 0, nil, "no nccl-tests output found"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fs := flag.NewFlagSet("doctor", flag.ContinueOnError)
			var c CurveFlags
			c.AddFlags(fs)
			if err := fs.Parse(tc.args); err != nil {
				t.Fatal(err)
			}
			out, err := c.Judge(fs, bytes.NewReader(text))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if out.Exit != tc.exit {
				t.Errorf("exit %d, want %d", out.Exit, tc.exit)
			}
			var b bytes.Buffer
			if err := out.Write(&b, false); err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if !strings.Contains(b.String(), w) {
					t.Errorf("text lacks %q:\n%s", w, b.String())
				}
			}
			b.Reset()
			if err := out.Write(&b, true); err != nil {
				t.Fatal(err)
			}
			var back CurveDoctorOutput
			if err := json.Unmarshal(b.Bytes(), &back); err != nil || back.Exit != out.Exit || len(back.Verdicts) != len(out.Verdicts) {
				t.Errorf("JSON does not read back (%v): exit %d, %d verdicts", err, back.Exit, len(back.Verdicts))
			}
		})
	}
}

func TestFlagsMakeOutDir(t *testing.T) {
	t.Setenv("COMMLAB_NODE_NAME", "node7")
	shared := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, ""},
		{[]string{"--node-dir", shared}, filepath.Join(shared, "node7")},
		{[]string{"--out", filepath.Join(shared, "a", "b")}, filepath.Join(shared, "a", "b")},
	} {
		fs := flag.NewFlagSet("doctor", flag.ContinueOnError)
		var f Flags
		f.AddFlags(fs)
		if err := fs.Parse(tc.args); err != nil {
			t.Fatal(err)
		}
		out, err := f.MakeOutDir()
		if err != nil || out != tc.want {
			t.Fatalf("%q: %q, %v; want %q", tc.args, out, err, tc.want)
		}
		if info, err := os.Stat(out); out != "" && (err != nil || !info.IsDir()) {
			t.Errorf("%q: %s not made: %v", tc.args, out, err)
		}
	}
	f := Flags{Out: filepath.Join(shared, "node7", "x")}
	if err := os.WriteFile(filepath.Join(shared, "file"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	f.Out = filepath.Join(shared, "file", "x")
	if _, err := f.MakeOutDir(); err == nil {
		t.Error("a folder under a file was made")
	}
}
