package launcher

import (
	"strings"
	"testing"
)

func TestStrip(t *testing.T) {
	tests := []struct{ in, rest, prefix string }{
		{"[1,0]<stdout>:#  Rank  0 Group", "#  Rank  0 Group", "[1,0]<stdout>:"},
		{"[1,12]<stderr>:host:1:2 [0] NCCL INFO x", "host:1:2 [0] NCCL INFO x", "[1,12]<stderr>:"},
		{"Mon Jan  2 15:04:05 2006<stdout>: # nThread 1", " # nThread 1", "Mon Jan  2 15:04:05 2006<stdout>:"},
		{"0: #  Rank  0", "#  Rank  0", "0: "},
		{" 3: NCCL version 2.21.5", "NCCL version 2.21.5", " 3: "},
		{"12:", "", "12:"},
		{"[default0]:[rank0]: NCCL INFO", " NCCL INFO", "[default0]:[rank0]:"},
		{"[pod/trainer-0/main] node:1:2 [0] NCCL INFO", "node:1:2 [0] NCCL INFO", "[pod/trainer-0/main] "},
		{"  | 2024-11-28T07:42:11.525Z | algo-1:1:1 [2] NCCL INFO x", "algo-1:1:1 [2] NCCL INFO x", "  | 2024-11-28T07:42:11.525Z | "},
		{"  | 2025-05-22T14:26:33.403-07:00 | ip-10:83:83 [0] NCCL INFO", "ip-10:83:83 [0] NCCL INFO", "  | 2025-05-22T14:26:33.403-07:00 | "},
		{"2024-05-01T12:00:00.123456Z        8    2  float", "       8    2  float", "2024-05-01T12:00:00.123456Z "},
		{"[1,0]<stdout>:0: line", "line", "[1,0]<stdout>:0: "},
		// What a tool prints itself stays.
		{"           8             2     float     sum", "           8             2     float     sum", ""},
		{"12:34:56 a time of day", "12:34:56 a time of day", ""},
		{"State: Active", "State: Active", ""},
		{"[0] NCCL INFO Trees", "[0] NCCL INFO Trees", ""},
		{"", "", ""},
	}
	for _, tc := range tests {
		rest, prefix := Strip(tc.in)
		if rest != tc.rest || prefix != tc.prefix {
			t.Errorf("Strip(%q) = %q, %q; want %q, %q", tc.in, rest, prefix, tc.rest, tc.prefix)
		}
	}
}

func TestDetectHostLabels(t *testing.T) {
	pdsh := "node1: CA 'mlx5_0'\nnode1: \tCA type: MT4123\nnode2: CA 'mlx5_0'\nnode2: \tCA type: MT4123\n\nnode1: \t\tState: Active\nnode2: \t\tState: Active\n"
	s := Detect(strings.Split(pdsh, "\n"))
	if got := strings.Join(s.Hosts(), ","); got != "node1,node2" {
		t.Fatalf("hosts = %q", got)
	}
	if rest, prefix := s.Strip("node2: \t\tState: Active"); rest != "\t\tState: Active" || prefix != "node2: " {
		t.Errorf("Strip = %q, %q", rest, prefix)
	}
	// A label not seen while detecting stays.
	if rest, _ := s.Strip("node3: x"); rest != "node3: x" {
		t.Errorf("unknown label stripped: %q", rest)
	}

	// ibstat's own "key: value" lines are not host labels.
	ibstat := "CA 'mlx5_0'\n\tCA type: MT4123\n\tPort 1:\n\t\tState: Active\n\t\tRate: 200\n"
	lines := strings.Split(ibstat, "\n")
	for i := range lines {
		lines[i] = strings.TrimSpace(lines[i])
	}
	if h := Detect(lines).Hosts(); len(h) != 0 {
		t.Errorf("ibstat lines taken for host labels: %v", h)
	}
	var nilStripper *Stripper
	if rest, _ := nilStripper.Strip("0: x"); rest != "x" {
		t.Errorf("nil Stripper: %q", rest)
	}
}

func FuzzStrip(f *testing.F) {
	for _, s := range []string{"[1,0]<stdout>:x", "0: y", "node: z\nnode: w", "[default3]:a"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		lines := strings.Split(in, "\n")
		s := Detect(lines)
		for _, l := range lines {
			rest, prefix := s.Strip(l)
			if prefix+rest != l {
				t.Fatalf("Strip(%q) = %q + %q", l, prefix, rest)
			}
		}
	})
}

func TestClean(t *testing.T) {
	in := "0: GPU0\tX \tNV18\n1: GPU1\tNV18\tX \n\n0: Legend:\n"
	out, _ := Clean([]byte(in))
	if string(out) != "GPU0\tX \tNV18\nGPU1\tNV18\tX \n\nLegend:\n" {
		t.Errorf("Clean = %q", out)
	}
	plain := []byte("GPU0\tX\n")
	if out, _ := Clean(plain); &out[0] != &plain[0] {
		t.Error("Clean copied an input with nothing to strip")
	}
}
