package ncclxml

import "github.com/commlab/commlab/parse"

// String is the document's summary (WriteSummary), as fmt.Println and a
// notebook's text/plain show it.
func (doc *Document) String() string { return parse.SummaryText("NCCL XML", doc.WriteSummary) }
