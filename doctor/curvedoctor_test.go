package doctor

import (
	"errors"
	"os"
	"strings"
	"testing"
)

func TestCurveDoctorJudge(t *testing.T) {
	data, err := os.ReadFile("../parse/nccltests/testdata/allreduce_h100_2node_a3mega.txt")
	if err != nil {
		t.Fatal(err)
	}
	curves, err := ReadCurves("a3mega.txt", data, "all_reduce", false)
	if err != nil {
		t.Fatal(err)
	}
	missing := errors.New("open single.txt: no such file")
	for _, tt := range []struct {
		name     string
		d        CurveDoctor
		wantErr  string
		exit     int
		wantText []string
	}{
		{name: "two nodes priced as H100 NDR", d: CurveDoctor{Setup: CurveSetup{Preset: "hgx-h100"}}, exit: 1,
			wantText: []string{"a3mega.txt: ", "16 rank(s), 2 node(s)", "[warn] collective/dip: dip at 16 MiB"}},
		{name: "against itself as single-node", d: CurveDoctor{Setup: CurveSetup{Preset: "hgx-h100"}, Single: func() ([]NamedCurve, error) { return curves, nil }},
			exit: 1, wantText: []string{"collective/multi-node"}},
		{name: "single-node file missing", d: CurveDoctor{Setup: CurveSetup{Preset: "hgx-h100"}, Single: func() ([]NamedCurve, error) { return nil, missing }},
			wantErr: "--single-node: open single.txt"},
		{name: "unknown preset", d: CurveDoctor{Setup: CurveSetup{Preset: "no-such-preset"}}, wantErr: "a3mega.txt: "},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, err := tt.d.Judge(curves)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			out.WriteText(&b)
			if out.Exit != tt.exit {
				t.Errorf("exit %d, want %d", out.Exit, tt.exit)
			}
			for _, w := range tt.wantText {
				if !strings.Contains(b.String(), w) {
					t.Errorf("no %q in\n%s", w, b.String())
				}
			}
		})
	}
}

// TestCurveDoctorToldCollective: --coll on an excerpt that names neither
// its collective nor its ranks gives both (busbw/algbw = 1 is 2 ranks of
// all_reduce), not a one-rank curve.
func TestCurveDoctorToldCollective(t *testing.T) {
	data, err := os.ReadFile("../parse/nccltests/testdata/public/awsdoeks_karpenter_efa_disabled_socket_excerpt.txt")
	if err != nil {
		t.Fatal(err)
	}
	curves, err := ReadCurves("socket.txt", data, "all_reduce", false)
	if err != nil {
		t.Fatal(err)
	}
	out, err := CurveDoctor{Collective: "all_reduce"}.Judge(curves)
	if err != nil {
		t.Fatal(err)
	}
	c := out.Reports[0].Curve
	if c.Collective != "all_reduce" || c.Ranks != 2 || c.CollectiveFrom != "--coll" {
		t.Errorf("collective %q from %q, %d ranks; want all_reduce from --coll on 2 ranks", c.Collective, c.CollectiveFrom, c.Ranks)
	}
}
