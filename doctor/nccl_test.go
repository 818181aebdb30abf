package doctor

import (
	"strings"
	"testing"

	"github.com/commlab/commlab/parse/nccllog"
	"github.com/commlab/commlab/probes/recorded"
)

func TestTunerFromLog(t *testing.T) {
	run, err := recorded.Load("nccl-h200x2-tuning")
	if err != nil {
		t.Fatal(err)
	}
	lg, err := nccllog.ParseBytes([]byte(run.Logs["nccl-debug"]))
	if err != nil {
		t.Fatal(err)
	}
	table, desc, err := TunerFromLog(lg, "hgx-h200")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"2 rank(s) on 1 node(s)", "NVL inside the node", "NVLS off", "cut to 2 GPUs"} {
		if !strings.Contains(desc, want) {
			t.Errorf("description %q lacks %q", desc, want)
		}
	}
	agree, total := 0, 0
	for _, r := range ComparePicks(lg, table) {
		total++
		if r.Agree {
			agree++
		}
	}
	if total == 0 || agree != total {
		t.Errorf("the tuner built from the log agrees at %d of %d sizes, want all", agree, total)
	}
	if _, _, err := TunerFromLog(lg, "pcie-8gpu"); err == nil || !strings.Contains(err.Error(), "NVL") {
		t.Errorf("an NVLink log on a PCIe preset: err %v, want one naming the log's NVL", err)
	}
	if _, _, err := TunerFromLog(&nccllog.Log{}, "hgx-h200"); err == nil {
		t.Error("a log with no ranks gave a table")
	}
}
