package recorded

import (
	"errors"
	"fmt"
	"strings"
	"testing"
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
		if len(r.Samples) == 0 || r.GPUModel != "NVIDIA H200" || r.Date.IsZero() || len(r.Command) == 0 {
			t.Errorf("%s: incomplete provenance or no samples: %s", n, r.Provenance())
		}
		for _, s := range r.Samples {
			if s.MedianUS <= 0 {
				t.Errorf("%s: %s %d bytes has no time", n, s.Op, s.Bytes)
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
