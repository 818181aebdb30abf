package c10dlab

import (
	"strings"
	"testing"
)

func TestTablesRecordedCPU(t *testing.T) {
	res, err := Recorded(RecordedCPU)
	if err != nil {
		t.Fatal(err)
	}
	store := res.Store.Table().Markdown()
	if !strings.HasPrefix(store, "| rank | ms since the rank started | call | key | value |") || !strings.Contains(store, "| set | `0//cpu//0/0` | 170 B |") {
		t.Errorf("store table:\n%s", store)
	}
	if text := res.Compile.Text(); !strings.Contains(text, "Dynamo's graph: _c10d_functional.all_reduce -> _c10d_functional.wait_tensor -> mm\n") ||
		!strings.Contains(text, "between the collective and its wait: nothing, the wait follows the collective at once") {
		t.Errorf("compile text:\n%s", text)
	}
	md := res.Coalesce.Markdown()
	if !strings.HasPrefix(md, "**4 KiB per tensor, SUM over 2 ranks**\n\n| tensors |") || !strings.Contains(md, "not supported") ||
		!strings.Contains(md, "coalescing_manager: RuntimeError: Backend gloo does not implement startCoalescing") || strings.Contains(md, "x less") {
		t.Errorf("gloo coalescing:\n%s", md)
	}
}

func TestTablesRecordedH200(t *testing.T) {
	res, err := Recorded(RecordedH200)
	if err != nil {
		t.Fatal(err)
	}
	md := res.Coalesce.Markdown()
	if !strings.Contains(md, "(each cell: the group's time · the GPU kernels / the NCCL calls it made)") ||
		!strings.Contains(md, "· 64 / 1 |") || !strings.Contains(md, "64 tensors of 4 KiB: one by one ") || !strings.Contains(md, "x less") {
		t.Errorf("NCCL coalescing:\n%s", md)
	}
	lines := res.Timeout.WatchdogLines()
	if len(lines) == 0 || !strings.HasPrefix(lines[0], "[") || !strings.Contains(strings.Join(lines, "\n"), "Watchdog caught collective operation timeout") {
		t.Errorf("watchdog lines %q", lines)
	}
}

func TestEndingsTable(t *testing.T) {
	endings, err := FirstRunEndings()
	if err != nil {
		t.Fatal(err)
	}
	md := EndingsTable(endings).Markdown()
	if !strings.HasPrefix(md, "| mode | rank 0's process | Flight Recorder dumps |") || !strings.Contains(md, "| 0 | killed at the deadline | 1 |") {
		t.Errorf("endings:\n%s", md)
	}
	if md := EndingsTable([]LoggedEnding{{Mode: "2"}}).Markdown(); !strings.Contains(md, "| 2 |  | 0 |") {
		t.Errorf("an ending without exits: %s", md)
	}
}
