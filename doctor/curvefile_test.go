package doctor

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/commlab/commlab/probes"
)

// ncclTestsTwoRanks is nccl-tests text output of two ranks, cut to three
// rows (the shape of all_reduce_perf 2.17.6's output; numbers made up).
const ncclTestsTwoRanks = `# nccl-tests version 2.17.6 nccl-headers=22803 nccl-library=22803
# Collective test starting: all_reduce_perf
# nThread 1 nGpus 2 minBytes 8 maxBytes 32 step: 4(factor) warmup iters: 1 iters: 20 agg iters: 1 validation: 1 graph: 0
#
# Using devices
#  Rank  0 Group  0 Pid    998 on         vm device  0 [0000:00:06] NVIDIA H200
#  Rank  1 Group  0 Pid    998 on         vm device  1 [0000:00:07] NVIDIA H200
#
#                                                              out-of-place                       in-place
#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong
#        (B)    (elements)                               (us)  (GB/s)  (GB/s)             (us)  (GB/s)  (GB/s)
           8             2     float     sum      -1     5.04    0.00    0.00       0     5.14    0.00    0.00       0
        2048           512     float     sum      -1     6.00    0.34    0.34       0     6.10    0.34    0.34       0
     1048576        262144     float     sum      -1    20.00   52.43   52.43       0    21.00   49.93   49.93       0
# Out of bounds values : 0 OK
# Avg bus bandwidth    : 17.59
#
# Collective test concluded: all_reduce_perf
`

func savedRun(t *testing.T, r *probes.Run) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := r.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestReadCurves(t *testing.T) {
	run := &probes.Run{Kind: "nccl", NCCL: "2.28.3", Samples: []probes.Sample{
		{Op: "all_reduce", Bytes: 1024, Ranks: 2, MedianUS: 10, BusBW: 0.1},
		{Op: "all_reduce", Bytes: 2048, Ranks: 2, MedianUS: 11, BusBW: 0.2},
		{Op: "all_reduce", Bytes: 2048, Ranks: 2, MedianUS: 12, BusBW: 0.3, InPlace: true},
		{Op: "all_gather", Bytes: 2048, Ranks: 2, MedianUS: 9, BusBW: 0.2},
	}}
	for _, tc := range []struct {
		name    string
		data    []byte
		coll    string
		inPlace bool
		names   []string // the curves' names, in order
		points  []int    // and their points
		errLike string   // non-empty: the error says this
		noCurve bool     // the error is ErrNoCurve
	}{
		{name: "a.txt", data: []byte(ncclTestsTwoRanks), names: []string{"a.txt"}, points: []int{3}},
		{name: "two.txt", data: []byte(ncclTestsTwoRanks + ncclTestsTwoRanks), names: []string{"two.txt (run 1)", "two.txt (run 2)"}, points: []int{3, 3}},
		{name: "run.json", data: savedRun(t, run), coll: "all_reduce", names: []string{"run.json"}, points: []int{2}},
		{name: "run.json", data: savedRun(t, run), coll: "all_reduce", inPlace: true, names: []string{"run.json"}, points: []int{1}},
		{name: "run.json", data: savedRun(t, run), coll: "broadcast", noCurve: true},
		{name: "empty.txt", data: []byte("# nccl-tests version 2.17.6\n# no rows here\n"), errLike: "empty.txt", noCurve: true},
		// Cut short, it is not a run: read as nccl-tests output, it has no rows.
		{name: "cut.json", data: []byte(`{"kind": "nccl", "samples": [`), errLike: "cut.json", noCurve: true},
		{name: "bad.json", data: []byte(`{"kind": "nccl", "samples": 3}`), errLike: "samples"},
	} {
		got, err := ReadCurves(tc.name, tc.data, tc.coll, tc.inPlace)
		label := tc.name + "/" + tc.coll
		if tc.errLike != "" || tc.noCurve {
			if err == nil {
				t.Errorf("%s: no error, want one", label)
				continue
			}
			if tc.noCurve && !errors.Is(err, ErrNoCurve) {
				t.Errorf("%s: error %v is not ErrNoCurve", label, err)
			}
			if !strings.Contains(err.Error(), tc.errLike) {
				t.Errorf("%s: error %q does not say %q", label, err, tc.errLike)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", label, err)
			continue
		}
		if len(got) != len(tc.names) {
			t.Errorf("%s: %d curves, want %d", label, len(got), len(tc.names))
			continue
		}
		for i, c := range got {
			if c.Name != tc.names[i] || len(c.Curve.Points) != tc.points[i] {
				t.Errorf("%s: curve %d is %q with %d points, want %q with %d", label, i, c.Name, len(c.Curve.Points), tc.names[i], tc.points[i])
			}
			if c.Curve.Collective != "all_reduce" || c.Curve.Ranks != 2 {
				t.Errorf("%s: curve %d is %s on %d ranks, want all_reduce on 2", label, i, c.Curve.Collective, c.Curve.Ranks)
			}
		}
	}
}
