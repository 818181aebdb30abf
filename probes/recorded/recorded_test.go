package recorded

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/commlab/commlab/probes"
)

func TestEveryRecordedRunLoads(t *testing.T) {
	names := List()
	if len(names) == 0 {
		t.Fatal("no recorded runs embedded")
	}
	for _, n := range names {
		r, err := Load(n)
		if err != nil {
			t.Errorf("%s: %v", n, err)
			continue
		}
		if r.GPUCount == 0 && r.Settings["backend"] == "gloo" {
			// A run on CPU ranks names its PyTorch and CPUs instead of a GPU.
			if len(r.Samples) == 0 || r.Date.IsZero() || !hasCommand(r) || !strings.Contains(r.Tool, "gloo") {
				t.Errorf("%s: incomplete provenance or no samples: %s", n, r.Provenance())
			}
		} else if (len(r.Samples) == 0 && !noTimedPart(r)) || !strings.Contains(n, gpuTag(r)) || r.Date.IsZero() || !hasCommand(r) || r.Driver == "" || r.CUDA == "" {
			t.Errorf("%s: incomplete provenance or no samples: %s", n, r.Provenance())
		}
		for _, s := range r.Samples {
			if s.DType != "" && r.NCCL == "" { // a collective
				t.Errorf("%s: %s measured without a recorded NCCL version", n, s.Op)
				break
			}
		}
		for _, s := range r.Samples {
			// nvbandwidth reports bandwidth matrices, not times.
			if s.MedianUS <= 0 && s.AlgBW <= 0 {
				t.Errorf("%s: %s %d bytes has neither a time nor a bandwidth", n, s.Op, s.Bytes)
			}
			if s.Wrong > 0 {
				t.Errorf("%s: %s %d bytes: %d wrong elements recorded", n, s.Op, s.Bytes, s.Wrong)
			}
		}
	}
}

func TestProtocolSweepsAreComplete(t *testing.T) {
	for _, prefix := range []string{"nccl-h200x1-proto-", "nccl-h200x2-proto-"} {
		got := Match(prefix)
		if len(got) != 4 {
			t.Fatalf("%s: %v, want auto, LL, LL128, Simple", prefix, got)
		}
		for _, n := range got {
			r, _ := Load(n)
			proto := strings.TrimPrefix(n, prefix)
			if proto != "auto" && r.Env["NCCL_PROTO"] != proto {
				t.Errorf("%s: NCCL_PROTO=%q", n, r.Env["NCCL_PROTO"])
			}
			for _, op := range []string{"all_reduce", "all_gather", "reduce_scatter"} {
				ss := r.Select(op, "")
				if len(ss) == 0 || ss[0].Bytes > 16 || ss[len(ss)-1].Bytes != 8<<30 {
					t.Errorf("%s %s: sweep does not span 8 B to 8 GiB", n, op)
				}
			}
			if r.Logs["nccl-debug"] == "" || r.NCCL == "" {
				t.Errorf("%s: no NCCL log or version", n)
			}
		}
	}
}

// TestExternalToolRunsAgreeWithCommlab holds the recorded nccl-tests and
// nvbandwidth runs against commlab's own on the same H200: in the bandwidth
// regime the tools and commlab measure the same copies.
func TestExternalToolRunsAgreeWithCommlab(t *testing.T) {
	ours, err := Load("nccl-vs-nccl-tests-h200x1")
	if err != nil {
		t.Fatal(err)
	}
	for _, coll := range []string{"all_reduce", "all_gather", "reduce_scatter"} {
		tool, err := Load("nccl-tests-" + coll + "-h200x1")
		if err != nil {
			t.Fatal(err)
		}
		if tool.NCCL != ours.NCCL || !strings.HasPrefix(tool.Tool, "nccl-tests 2.17") {
			t.Errorf("%s: nccl-tests run on NCCL %q (%s), commlab's on %q", coll, tool.NCCL, tool.Tool, ours.NCCL)
		}
		for _, s := range tool.Select(coll, "") {
			if s.InPlace || s.Bytes < 256<<20 {
				continue
			}
			for _, o := range ours.Select(coll, "") {
				if o.Bytes == s.Bytes && !o.InPlace {
					if r := o.MedianUS / s.MedianUS; r < 0.97 || r > 1.03 {
						t.Errorf("%s %d bytes: commlab %.1f us, nccl-tests %.1f us", coll, s.Bytes, o.MedianUS, s.MedianUS)
					}
				}
			}
		}
	}
	nvb, err := Load("nvbandwidth-h200x1")
	if err != nil {
		t.Fatal(err)
	}
	copies, err := Load("bandwidth-h200x1")
	if err != nil {
		t.Fatal(err)
	}
	pairs := map[string]string{"host_to_device_memcpy_ce": "h2d_pinned", "device_to_host_memcpy_ce": "d2h_pinned"}
	for tc, op := range pairs {
		tcs := nvb.Select(tc, "")
		ss := copies.Select(op, "")
		if len(tcs) != 1 || len(ss) == 0 {
			t.Fatalf("%s: %d nvbandwidth samples, %d commlab samples of %s", tc, len(tcs), len(ss), op)
		}
		largest := ss[len(ss)-1]
		if r := largest.AlgBW / tcs[0].AlgBW; r < 0.97 || r > 1.03 {
			t.Errorf("%s: nvbandwidth %.2f GB/s, commlab %s %.2f GB/s at %d bytes", tc, tcs[0].AlgBW, op, largest.AlgBW, largest.Bytes)
		}
	}
}

func TestLoadUnknown(t *testing.T) {
	if _, err := Load("nccl-h200x64-proto-auto"); !errors.Is(err, ErrNotFound) {
		t.Errorf("err = %v, want ErrNotFound", err)
	}
	if _, err := Load("nccl-h200x1-proto-LL.json"); err != nil {
		t.Errorf("a name with .json should load: %v", err)
	}
}

func ExampleLoad() {
	r, err := Load("nccl-h200x1-proto-Simple")
	if err != nil {
		fmt.Println(err)
		return
	}
	s := r.Select("all_reduce", "")
	fmt.Println(r.Kind, r.GPUCount, r.GPUModel, r.NCCL, r.Env["NCCL_PROTO"], len(s) > 0)
	// Output: nccl 1 NVIDIA H200 2.28.9 Simple true
}

// hasCommand: the run keeps its command, or says why it was not kept.
func hasCommand(r *probes.Run) bool {
	return len(r.Command) > 0 || r.Settings[NotKept] != ""
}

func TestCommand(t *testing.T) {
	tests := []struct{ in, want string }{
		{"commlab probe nccl -b 8 --save /root/out/r/x.json", "commlab probe nccl -b 8"},
		{"commlab probe nccl --save=/tmp/x.json -e 1G", "commlab probe nccl -e 1G"},
		{"commlab probe nccl --save /root/a.json --compare /root/out/r/torch-nccl.json", "commlab probe nccl --compare torch-nccl.json"},
		{"commlab probe custom-allreduce --from-logs a,b --provenance=/x/p.txt", "commlab probe custom-allreduce --from-logs a,b --provenance=p.txt"},
		{"commlab probe nccl --save", "commlab probe nccl"},
		{"commlab probe c10d --keep /root/out/c10d --save /root/r.json -- --modes 1,3", "commlab probe c10d --keep c10d -- --modes 1,3"},
	}
	for _, tt := range tests {
		if got := strings.Join(Command(strings.Fields(tt.in)), " "); got != tt.want {
			t.Errorf("Command(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestCommandsAreWhatAUserTypes holds that a banner's command is the one
// that made the run, as a reader types it: a commlab verb, a public tool
// by its name, or a script of this repository by its path from the
// repository's root, never a folder of the recording machine; a run whose
// command was lost says so in Settings[NotKept] and has none. (The root
// package's TestRecordedCommandsExist also runs each verb's flags.)
func TestCommandsAreWhatAUserTypes(t *testing.T) {
	check := func(name string, cmd []string, settings map[string]string) {
		if why := settings[NotKept]; why != "" {
			if len(cmd) > 0 {
				t.Errorf("%s: %s says %q, yet the run has a command", name, NotKept, why)
			}
			return
		}
		if len(cmd) == 0 {
			t.Errorf("%s: no command and no %s", name, NotKept)
			return
		}
		typed := Command(cmd)
		line := strings.Join(typed, " ")
		for _, a := range typed {
			if strings.HasPrefix(a, "/") || strings.Contains(a, ".tools/") {
				t.Errorf("%s: command %q names %q, a folder of the recording machine", name, line, a)
			}
			if strings.HasSuffix(a, ".py") || strings.HasSuffix(a, ".sh") {
				if _, err := os.Stat(filepath.Join("..", "..", a)); err != nil {
					t.Errorf("%s: command %q runs %s, which is not in this repository", name, line, a)
				}
			}
		}
		if w, ok := settings["recorded_with"]; ok && w == line {
			t.Errorf("%s: recorded_with repeats the command", name)
		}
	}
	for _, n := range List() {
		r, err := Load(n)
		if err != nil {
			t.Fatal(err)
		}
		check(n, r.Command, r.Settings)
	}
	for _, n := range HangLabs() {
		r, err := HangLabRun(n)
		if err != nil {
			t.Fatal(err)
		}
		check(n, r.Command, r.Settings)
	}
}

// noTimedPart says whether a run times nothing: a staged NCCL hang, or a
// run of chapter 5's c10d lab that ran none of the parts that time
// something (coalesce): a timeout run keeps what each
// error-handling mode left behind, a compile run the code Inductor
// generated, both in its summary, with no time samples.
func noTimedPart(r *probes.Run) bool {
	parts := r.Settings["parts"]
	if r.Kind == "nccl-hang" { // a staged hang: its evidence is in the folder beside it
		return true
	}
	return r.Kind == "c10d-lab" && parts != "" && !slices.Contains(strings.Split(parts, ","), "coalesce")
}

// gpuTag is the part of a recording's name that says its GPU and their
// count ("h200x2", "h100x1"): the model's first word after NVIDIA,
// lowercased.
func gpuTag(r *probes.Run) string {
	f := strings.Fields(strings.TrimPrefix(r.GPUModel, "NVIDIA "))
	if len(f) == 0 {
		return "no GPU model"
	}
	return fmt.Sprintf("%sx%d", strings.ToLower(f[0]), r.GPUCount)
}
