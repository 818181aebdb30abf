package doctor

import (
	"encoding/json"
	"testing"
)

func TestExitCode(t *testing.T) {
	for _, tc := range []struct {
		name string
		vs   []Verdict
		want int
	}{
		{"none", nil, 0},
		{"ok and skipped", []Verdict{{Status: OK}, {Status: Skipped}}, 0},
		{"warn", []Verdict{{Status: OK}, {Status: Warn}}, 1},
		{"fail wins", []Verdict{{Status: Warn}, {Status: Fail}, {Status: OK}}, 2},
	} {
		if got := ExitCode(tc.vs); got != tc.want {
			t.Errorf("%s: ExitCode = %d, want %d", tc.name, got, tc.want)
		}
	}
}

func TestStatusJSON(t *testing.T) {
	for _, s := range []Status{OK, Warn, Fail, Skipped} {
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		var back Status
		if err := json.Unmarshal(b, &back); err != nil || back != s {
			t.Errorf("%s: round trip gave %v, %v", b, back, err)
		}
	}
	var s Status
	if err := json.Unmarshal([]byte(`"broken"`), &s); err == nil {
		t.Error("unknown status accepted")
	}
}
