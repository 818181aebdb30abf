package nccltests

import (
	"fmt"

	"github.com/commlab/commlab/parse"
	"github.com/commlab/commlab/units"
)

// String is the result's summary (WriteSummary): a notebook shows it under
// the bus-bandwidth chart, fmt.Println prints it.
func (res *Result) String() string { return parse.SummaryText("nccl-tests", res.WriteSummary) }

// String prints one half of a row with units, e.g. "1.25 ms, algbw 85.9
// GB/s, busbw 150.3 GB/s", or "not printed".
func (m Measurement) String() string {
	if !m.Present {
		return "not printed"
	}
	return fmt.Sprintf("%s, algbw %s, busbw %s", units.Readable(m.TimeUs, "us"),
		units.Readable(m.AlgBW, "GB/s"), units.Readable(m.BusBW, "GB/s"))
}
