package flightrec_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/commlab/commlab/parse/flightrec"
)

// A notebook loads every rank's dump of a hung job and asks who is behind.
// The dumps are synthetic (testdata/gen_fixtures.py): eight ranks, rank 3
// never reached all_reduce #3001.
func ExampleAnalyze() {
	paths, _ := filepath.Glob("testdata/missing_rank/nccl_trace_rank_*")
	dumps, err := flightrec.LoadDumps(paths)
	if err != nil {
		fmt.Println(err)
		return
	}
	a := flightrec.Analyze(dumps)
	for _, line := range a.Verdict {
		fmt.Println(line)
	}
	for _, s := range a.Groups[0].States[2:4] {
		fmt.Printf("rank %d: started #%d, completed #%d\n", s.Rank, s.LastStarted, s.LastCompleted)
	}
	// Output:
	// rank 3 never called all_reduce #3001 (input 4096x1024 BFloat16) of pg 0 (default_pg): its last enqueued collective is #3000; ranks 0-2,4-7 are waiting in all_reduce #3001
	// rank 2: started #3001, completed #3000
	// rank 3: started #3000, completed #3000
}

// A folder as a job leaves it: dumps beside other files. LoadSet keeps one
// dump per rank and says what it left out and why.
func ExampleLoadSet() {
	s, err := flightrec.LoadSet([]string{"testdata/h200x4_mixed"})
	if err != nil {
		panic(err)
	}
	for _, d := range s.Dumps {
		fmt.Println(d.Rank, d.Format)
	}
	for _, sk := range s.Skipped {
		fmt.Println("left out:", filepath.Base(sk.File), "-", sk.Reason)
	}
	// Output:
	// 0 pickle
	// 1 pickle
	// 2 json
	// 3 json
	// left out: probe-topo.json - not a Flight Recorder dump: no version, pg_config or entries key
}

// A notebook reads PyTorch's fr_trace report posted with a real two-rank
// NCCL hang and asks which collective it blames and on which rank.
func ExampleParseTraceReport() {
	b, err := os.ReadFile("testdata/public/pytorch151666_fr_trace_state_mismatch_excerpt.txt")
	if err != nil {
		fmt.Println(err)
		return
	}
	errs, err := flightrec.ParseTraceReport(bytes.NewReader(b))
	if err != nil {
		fmt.Println(err)
		return
	}
	e := errs[0]
	fmt.Printf("%s #%d: rank %d %s\n", e.Collective, e.Seq, e.Culprits[0].Rank, e.Culprits[0].Detail)
	// Output:
	// nccl:all_reduce #1487: rank 1 Expected state: 'scheduled' does not match found state: 'completed'
}
