package costmodel

// This file prints a tuned table the way NCCL prints it at init.

import (
	"fmt"
	"strings"
)

// String prints the table as NCCL prints it at init with
// NCCL_DEBUG_SUBSYS=TUNING (without the log prefix): blocks of three
// algorithms, "latency/bandwidth" per protocol.
func (T TunerTable) String() string {
	var b strings.Builder
	for block := 0; block*3 < T.nAlgos; block++ {
		line := "  Algorithm   |"
		for ba := 0; ba < 3; ba++ {
			a := block*3 + ba
			if a >= T.nAlgos {
				continue
			}
			line += fmt.Sprintf(" %14s   %14s   %14s |", "", ncclAlgos[a], "")
		}
		b.WriteString(line + "\n")
		line = "  Protocol    |"
		for ba := 0; ba < 3; ba++ {
			if block*3+ba >= T.nAlgos {
				continue
			}
			for p := 0; p < 3; p++ {
				line += fmt.Sprintf(" %14s |", ncclProtos[p])
			}
		}
		b.WriteString(line + "\n")
		line = " Max NThreads |"
		for ba := 0; ba < 3; ba++ {
			a := block*3 + ba
			if a >= T.nAlgos {
				continue
			}
			for p := 0; p < 3; p++ {
				line += fmt.Sprintf(" %14d |", T.threads[a][p])
			}
		}
		b.WriteString(line + "\n")
		for c := range ncclFuncs {
			line = fmt.Sprintf("%13s |", ncclFuncNm[c])
			for ba := 0; ba < 3; ba++ {
				a := block*3 + ba
				if a >= T.nAlgos {
					continue
				}
				for p := 0; p < 3; p++ {
					line += fmt.Sprintf("%8.1f/%6.1f |", T.lat[c][a][p], T.bw[c][a][p])
				}
			}
			b.WriteString(line + "\n")
		}
	}
	return b.String()
}
