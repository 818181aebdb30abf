package cells_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/commlab/commlab/cells"
	"github.com/commlab/commlab/kernel/session"
)

// TestPanicInCompiledCodeNamesTheCallingLine: a panic raised inside a
// compiled function a cell calls (the standard library's, gonum's) shows
// the cell's line that made the call, with the compiled frames it went
// through, as a panic in interpreted code shows its line.
func TestPanicInCompiledCodeNamesTheCallingLine(t *testing.T) {
	tests := []struct {
		name, setup, cell string
		evalue            string
		frame             string // a traceback line naming the compiled function
		line              string // the cell line shown
	}{
		{
			name:   "index out of range in a compiled function given a slice expression",
			cell:   "import \"encoding/binary\"\nbuf := []byte{1, 2, 3}\nn := 0\nn += 1\nx := binary.BigEndian.Uint32(buf[1:])\n_ = x",
			evalue: "runtime error: index out of range [3] with length 2",
			frame:  "  in encoding/binary.bigEndian.Uint32 (compiled), called from the cell",
			line:   "   5 | x := binary.BigEndian.Uint32(buf[1:])",
		},
		{
			name:   "nil map write in a compiled method",
			cell:   "import \"net/url\"\nvar q url.Values\nok := true\n_ = ok\nq.Set(\"size\", \"1GiB\")",
			evalue: "assignment to entry in nil map",
			frame:  "  in net/url.Values.Set (compiled), called from the cell",
			line:   "   5 | q.Set(\"size\", \"1GiB\")",
		},
		{
			name:   "nil map write in a compiled function",
			cell:   "import \"net/http\"\nvar h http.Header\nk := \"X-Rank\"\nh.Add(k, \"3\")",
			evalue: "assignment to entry in nil map",
			frame:  "  in net/http.Header.Add (compiled)",
			line:   "   4 | h.Add(k, \"3\")",
		},
		{
			name:   "gonum's own panic",
			cell:   "import \"gonum.org/v1/gonum/mat\"\ndata := []float64{1, 2, 3}\nm := mat.NewDense(2, 2, data)\n_ = m",
			evalue: "mat: dimension mismatch",
			frame:  "  in gonum.org/v1/gonum/mat.NewDense (compiled), called from the cell",
			line:   "   3 | m := mat.NewDense(2, 2, data)",
		},
		{
			name:   "compiled call inside an interpreted function",
			setup:  "import \"encoding/binary\"\nfunc word(b []byte) uint32 { return binary.LittleEndian.Uint32(b) }",
			cell:   "a := uint32(7)\nb := word([]byte{1})\n_ = a + b",
			evalue: "runtime error: index out of range [3] with length 1",
			frame:  "  in encoding/binary.littleEndian.Uint32 (compiled), called from word",
			line:   "   2 | b := word([]byte{1})",
		},
		{
			name:   "an interpreted function called on two lines",
			setup:  "import \"encoding/binary\"\nfunc word(b []byte) uint32 { return binary.LittleEndian.Uint32(b) }",
			cell:   "a := word([]byte{1, 2, 3, 4})\nb := word([]byte{1})\n_ = a + b",
			evalue: "runtime error: index out of range [3] with length 1",
			frame:  "  in word, called from the cell",
			line:   "   2 | b := word([]byte{1})",
		},
		{
			name:   "the same function called on two lines",
			cell:   "import \"encoding/binary\"\nok := binary.BigEndian.Uint16([]byte{1, 2})\nbad := binary.BigEndian.Uint16([]byte{1})\n_, _ = ok, bad",
			evalue: "runtime error: index out of range [1] with length 1",
			frame:  "  in encoding/binary.bigEndian.Uint16 (compiled), called from the cell",
			line:   "   3 | bad := binary.BigEndian.Uint16([]byte{1})",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := session.New(cells.View().Session())
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if tt.setup != "" {
				if err := s.Execute(context.Background(), tt.setup, func(session.Event) {}); err != nil {
					t.Fatal(err)
				}
			}
			var failure *session.Event
			_ = s.Execute(context.Background(), tt.cell, func(e session.Event) {
				if e.Kind == session.EventError {
					failure = &e
				}
			})
			if failure == nil {
				t.Fatal("no error")
			}
			if failure.EValue != tt.evalue {
				t.Errorf("evalue %q, want %q", failure.EValue, tt.evalue)
			}
			if !slices.ContainsFunc(failure.Traceback, func(l string) bool { return strings.HasPrefix(l, tt.frame) }) {
				t.Errorf("traceback %q lacks %q", failure.Traceback, tt.frame)
			}
			if tt.line != "" && !slices.Contains(failure.Traceback, tt.line) {
				t.Errorf("traceback %q lacks %q", failure.Traceback, tt.line)
			}
			if tt.line == "" && slices.ContainsFunc(failure.Traceback, func(l string) bool { return strings.HasPrefix(l, "     | ") }) {
				t.Errorf("traceback %q points at one line of several calls", failure.Traceback)
			}
			// The session lives on.
			if err := s.Execute(context.Background(), "1 + 1", func(session.Event) {}); err != nil {
				t.Errorf("after the panic: %v", err)
			}
		})
	}
}
