package customar

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFromLogFilesAndTable(t *testing.T) {
	dir := "testdata/h200"
	for _, tt := range []struct {
		name       string
		logs       []string
		provenance string
		wantErr    string
		want       []string
	}{
		{name: "two ranks with provenance", logs: []string{"ws2-rank0.log", "ws2-rank1.log"}, provenance: "provenance.txt",
			want: []string{"# 2 ranks, placement ", "oneshot", "twoshot", " ok\n"}},
		{name: "one rank", logs: []string{"ws1-rank0.log"}, want: []string{"# 1 ranks"}},
		{name: "missing log", logs: []string{"none.log"}, wantErr: "none.log"},
		{name: "missing provenance", logs: []string{"ws1-rank0.log"}, provenance: "none.txt", wantErr: "none.txt"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var paths []string
			for _, l := range tt.logs {
				paths = append(paths, filepath.Join(dir, l))
			}
			prov := ""
			if tt.provenance != "" {
				prov = filepath.Join(dir, tt.provenance)
			}
			run, err := FromLogFiles(paths, prov)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(run.Command, " ") != "bash probes/gpubench/ch7.sh" {
				t.Errorf("command %q", run.Command)
			}
			if prov != "" {
				b, _ := os.ReadFile(prov)
				if run.Logs["provenance"] != string(b) {
					t.Errorf("provenance not kept")
				}
			}
			var out strings.Builder
			WriteTable(&out, run)
			for _, w := range tt.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("no %q in\n%s", w, out.String())
				}
			}
		})
	}
}
