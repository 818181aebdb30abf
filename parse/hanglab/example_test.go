package hanglab_test

import (
	"fmt"
	"os"

	"github.com/commlab/commlab/parse/hanglab"
)

// A notebook reads a recorded hang (two gloo ranks; rank 1 skipped one
// all_reduce) and asks who fell behind, in which collective, and how long
// the other rank waited.
func ExampleLab_Culprit() {
	lab, err := hanglab.Load(os.DirFS("../../probes/recorded/hang/hang-count"))
	if err != nil {
		fmt.Println(err)
		return
	}
	c := lab.Culprit()
	fmt.Printf("rank %v never called %s #%d (its last was #%d); rank %d waited %.0f s\n", c.Ranks, c.Op, c.Seq, c.LastSeq, c.Ahead, c.WaitedS)
	// Output:
	// rank [1] never called all_reduce #5 (its last was #4); rank 0 waited 10 s
}
