package nvbandwidth

import "github.com/commlab/commlab/parse"

// String is the report's summary (WriteSummary), as fmt.Println and a
// notebook's text/plain show it.
func (rep *Report) String() string { return parse.SummaryText("nvbandwidth", rep.WriteSummary) }
