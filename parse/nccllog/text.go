package nccllog

import (
	"fmt"

	"github.com/commlab/commlab/parse"
)

// String is the log's summary (WriteSummary), as fmt.Println and a
// notebook's text/plain show it.
func (l *Log) String() string { return parse.SummaryText("NCCL log", l.WriteSummary) }

// String prints where a record came from as the line's prefix reads, e.g.
// "node1:1234 [3] line 17".
func (s Source) String() string {
	p := s.Process()
	if s.Dev >= 0 {
		p += fmt.Sprintf(" [%d]", s.Dev)
	}
	if s.Line > 0 {
		p += fmt.Sprintf(" line %d", s.Line)
	}
	return p
}
