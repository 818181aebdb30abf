package doctor

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/commlab/commlab/parse/nccllog"
)

// A large job's log keeps its first WARN lines and counts the rest
// (nccllog's Omitted): the doctor prints the log's total, not the kept
// number.
func TestWarningCountsAreTotals(t *testing.T) {
	kept := []nccllog.Message{}
	for range 10 {
		kept = append(kept, nccllog.Message{Source: nccllog.Source{Host: "gpu1", PID: 7}, Text: "some plugin said something odd"})
	}
	lg := &nccllog.Log{NCCLLines: 5000, Warnings: kept, Omitted: map[string]int{"warnings": 4990}}
	v := checkNCCLWarnings(lg)
	if !strings.Contains(v.Summary, "5000 NCCL WARN line(s)") {
		t.Errorf("summary %q: want the total 5000", v.Summary)
	}
	if got := strings.Join(v.Evidence, "\n"); !strings.Contains(got, "... 4992 more WARN lines") {
		t.Errorf("evidence lacks the total of the rest:\n%s", got)
	}
	ev := &Evidence{NCCLLog: lg}
	if got := strings.Join(ncclWarnLines(ev, 3), "\n"); !strings.Contains(got, "... 4997 more NCCL WARN lines") {
		t.Errorf("hang evidence lacks the total of the rest:\n%s", got)
	}
}

// The PyTorch lines of a job's log are picked out as it streams past,
// whatever the writes' boundaries, and no more than maxJobLogKept of them.
func TestJobLogLinesKeepsPyTorchLines(t *testing.T) {
	text := "host:1:1 [0] NCCL INFO Bootstrap: Using eth0\n" +
		"[rank0]:[I ProcessGroupNCCL.cpp:1000] ProcessGroupNCCL initialization options: TORCH_NCCL_ASYNC_ERROR_HANDLING: 3, TORCH_NCCL_DUMP_ON_TIMEOUT: 1\n" +
		"noise\n" +
		"I1206 torch/distributed/run.py:800] Starting elastic_operator\n" +
		"[rank0]:[I ProcessGroupNCCL.cpp:1010] ProcessGroupNCCL environments: NCCL version: 2.28.9" // no newline at the end
	want := TorchSettingsFromLog(text)
	if len(want) != 3 {
		t.Fatalf("the fixture gives %v", want)
	}
	for _, chunk := range []int{1, 2, 7, 64, len(text)} {
		var j jobLogLines
		for i := 0; i < len(text); i += chunk {
			if n, err := j.Write([]byte(text[i:min(i+chunk, len(text))])); err != nil || n != min(chunk, len(text)-i) {
				t.Fatalf("Write = %d, %v", n, err)
			}
		}
		j.flush()
		kept := j.kept.String()
		if strings.Contains(kept, "noise") || strings.Contains(kept, "Bootstrap") {
			t.Errorf("chunks of %d: kept lines no reader needs:\n%s", chunk, kept)
		}
		if got := TorchSettingsFromLog(kept); !reflect.DeepEqual(got, want) {
			t.Errorf("chunks of %d: settings %v, want %v", chunk, got, want)
		}
		if l, _ := launcherFromLog(kept); l != "torchrun" {
			t.Errorf("chunks of %d: launcher %q, want torchrun", chunk, l)
		}
	}
	var j jobLogLines
	line := []byte("[rank0]:[I ProcessGroupNCCL.cpp:1] TORCH_NCCL_BLOCKING_WAIT: 0\n")
	for range 2 * maxJobLogKept / len(line) {
		j.Write(line)
	}
	if j.kept.Len() > maxJobLogKept {
		t.Errorf("kept %d bytes, bound %d", j.kept.Len(), maxJobLogKept)
	}
}

// The doctor reads an NCCL log given as several files as one log, the
// files streamed in order.
func TestReadNCCLLogStreamsFiles(t *testing.T) {
	dir := t.TempDir()
	log0 := "h:1:1 [0] NCCL INFO NCCL version 2.28.9+cuda13.0\nh:1:1 [0] NCCL INFO ncclCommInitRankConfig comm 0x1 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 10 commId 0x5 - Init START"
	log1 := "[rank1]:[I ProcessGroupNCCL.cpp:1] TORCH_NCCL_BLOCKING_WAIT: 0\nh:2:2 [1] NCCL INFO ncclCommInitRankConfig comm 0x2 rank 1 nranks 2 cudaDev 1 nvmlDev 1 busId 20 commId 0x5 - Init START\n"
	for name, text := range map[string]string{"rank0.log": log0, "rank1.log": log1} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ev := &Evidence{}
	if err := readNCCLLog(ev, dir, Files{}); err != nil {
		t.Fatal(err)
	}
	if ev.NCCLLog == nil || ev.NCCLLog.NCCLLines != 3 {
		t.Fatalf("log %+v: want 3 NCCL lines from two files", ev.NCCLLog)
	}
	if ev.TorchSettings["TORCH_NCCL_BLOCKING_WAIT"] != "0" {
		t.Errorf("torch settings %v", ev.TorchSettings)
	}
	if note := ev.Inputs[len(ev.Inputs)-1].Note; !strings.Contains(note, "2 file(s), 3 NCCL lines") {
		t.Errorf("note %q", note)
	}
	if err := readNCCLLog(&Evidence{}, filepath.Join(dir, "none*.log"), Files{}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("no such files: %v", err)
	}
}
