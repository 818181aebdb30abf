package doctor

import "testing"

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
