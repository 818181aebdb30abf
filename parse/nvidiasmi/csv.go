package nvidiasmi

import (
	"encoding/csv"
	"fmt"
	"io"
	"strings"

	"github.com/commlab/commlab/parse"
)

// Samples is an `nvidia-smi --query-gpu=FIELDS --format=csv` output, taken
// once or every few hundred ms (-lms): one row a sample, each value as
// printed ("100 %", "125.39 W").
type Samples struct {
	// Header names the columns as printed: "utilization.gpu [%]".
	Header []string   `json:"header"`
	Rows   [][]string `json:"rows"`
}

// ParseSamples reads a --format=csv query output; lines before its header
// that start with "$" or "#" (a command line, an exit note) are skipped.
func ParseSamples(r io.Reader) (*Samples, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("nvidiasmi: samples: %w", err)
	}
	var lines []string
	for _, l := range strings.Split(string(b), "\n") {
		if len(lines) == 0 && (strings.HasPrefix(l, "$") || strings.HasPrefix(l, "#") || strings.TrimSpace(l) == "") {
			continue
		}
		lines = append(lines, l)
	}
	cr := csv.NewReader(strings.NewReader(strings.Join(lines, "\n")))
	cr.TrimLeadingSpace = true
	recs, err := cr.ReadAll()
	if err != nil {
		return nil, fmt.Errorf("nvidiasmi: samples: %w: %w", parse.ErrFormat, err)
	}
	if len(recs) < 2 {
		return nil, fmt.Errorf("nvidiasmi: samples: %w: no header and row", parse.ErrFormat)
	}
	return &Samples{Header: recs[0], Rows: recs[1:]}, nil
}

// Column returns the values of the column whose name, without its unit
// (" [%]"), is field ("utilization.gpu"); nil when there is none.
func (s *Samples) Column(field string) []string {
	for i, h := range s.Header {
		if name, _, _ := strings.Cut(h, " ["); name == field {
			out := make([]string, len(s.Rows))
			for j, r := range s.Rows {
				if i < len(r) {
					out[j] = r[i]
				}
			}
			return out
		}
	}
	return nil
}
