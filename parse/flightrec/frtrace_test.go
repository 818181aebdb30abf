package flightrec

import (
	"bytes"
	"strings"
	"testing"

	"github.com/commlab/commlab/internal/golden"
)

// TestTraceReportGolden reads each public fr_trace report (testdata/public,
// sources in its README) and holds the collectives and the reading to a
// golden file.
func TestTraceReportGolden(t *testing.T) {
	inputs := golden.Inputs(t, 1, "testdata/public/*fr_trace*.txt")
	golden.Each(t, inputs, golden.AppendExt, func(t *testing.T, data []byte) []byte {
		errs, err := ParseTraceReport(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		return append(golden.JSON(t, errs, "  "), []byte(ReadTraceErrors(errs))...)
	})
}

func TestParseTraceReport(t *testing.T) {
	// the older heading, two culprits in one message, a stack trace with a
	// frame that looks like a field
	report := "Collective 39 at entry 38 errors\ngroup info: 0:default_pg\ncollective: nccl:all_reduce\n" +
		"input sizes: [[1025]]\nworld size: 4\nexpected ranks: {0, 1, 2, 3}\ncollective state: scheduled\n" +
		"error msg: Culprit rank 2; Error type: SIZE_OR_SYNTAX_MISMATCH, Expected input sizes: '[[1025]]' does not match found input sizes: '[[8]]', " +
		"Culprit rank 3; Error type: SIZE_OR_SYNTAX_MISMATCH, Expected input sizes: '[[1025]]' does not match found input sizes: '[[9]]'\n" +
		"collective stack trace: \n all_reduce at /x/distributed_c10d.py:2501\nstep at train.py:7\n"
	errs, err := ParseTraceReport(strings.NewReader(report))
	if err != nil {
		t.Fatal(err)
	}
	e := errs[0]
	if e.Seq != 39 || e.RecordID != 38 || e.WorldSize != 4 || len(e.ExpectedRanks) != 4 || e.State != "scheduled" {
		t.Errorf("fields: %+v", e)
	}
	if len(e.Culprits) != 2 || e.Culprits[1].Rank != 3 || e.Culprits[1].Type != "SIZE_OR_SYNTAX_MISMATCH" ||
		e.Culprits[0].Detail != "Expected input sizes: '[[1025]]' does not match found input sizes: '[[8]]'" {
		t.Errorf("culprits: %+v", e.Culprits)
	}
	if len(e.Stack) != 2 || e.Stack[1] != "step at train.py:7" {
		t.Errorf("stack: %q", e.Stack)
	}
	// torch 2.11's heading for a collective a rank never recorded, as its
	// fr_trace printed it over a real NCCL hang (chapter 6's recording)
	missing := "Not all ranks joining collective, sequence number: 2\ninternal record id: 1\ngroup info: 0:default_pg\n" +
		"collective: nccl:all_reduce\nmissing ranks: {1}\ninput sizes: [[1024]]\noutput sizes: [[1024]]\nworld size: 2\n" +
		"expected ranks: {0, 1}\ncollective state: started\ncollective stack trace: \n all_reduce at /x/distributed_c10d.py:3068\n"
	errs, err = ParseTraceReport(strings.NewReader(missing))
	if err != nil {
		t.Fatal(err)
	}
	if e := errs[0]; e.Seq != 2 || e.RecordID != 1 || e.State != "started" || len(e.MissingRanks) != 1 || e.MissingRanks[0] != 1 || len(e.Stack) != 1 {
		t.Errorf("missing ranks: %+v", e)
	}
	if got, want := ReadTraceErrors(errs), "first rank's entry started; rank 1 recorded no entry for it\n"; !strings.HasSuffix(got, want) {
		t.Errorf("ReadTraceErrors = %q, want it to end %q", got, want)
	}
	if _, err := ParseTraceReport(strings.NewReader("no errors found\n")); err == nil {
		t.Error("a report without a collective with errors: no error")
	}
}

func FuzzParseTraceReport(f *testing.F) {
	f.Add("Collective sequence number: 1487 has errors\nerror msg: Culprit rank 1; Error type: COLLECTIVE_STATE_MISMATCH, Expected state: 'scheduled' does not match found state: 'completed'\n")
	f.Add("Collective 39 at entry 38 errors\nexpected ranks: {0, 1}\ncollective stack trace: \n f at x.py:1\n")
	f.Add("Not all ranks joining collective, sequence number: 2\nmissing ranks: {1}\ncollective state: started\n")
	f.Fuzz(func(t *testing.T, s string) {
		if errs, err := ParseTraceReport(strings.NewReader(s)); err == nil {
			_ = ReadTraceErrors(errs)
		}
	})
}
