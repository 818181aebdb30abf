// Package textinput gives the line-oriented parsers under parse
// their input, read one way: the whole input read, the launchers'
// prefixes removed line for line (internal/launcher), "\r" trimmed, lines
// numbered from 1, and problems reported as a parse.Error under the
// parser's format name with the parser's own sentinel.
//
// It exists because every text parser opened the same way, each copy
// with its own small slips waiting to happen (a missed "\r", a line count
// off by one after a read error); the parsers now differ only in what they
// do with a line. It owns no format.
package textinput

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/commlab/commlab/parse"
	"github.com/commlab/commlab/parse/internal/launcher"
)

// ReadClean reads r whole and removes the launchers' prefixes (srun's
// "0: ", mpirun's "[1,0]<stdout>:", pdsh's "host: ") line for line, so
// line numbers still name the input's lines. When reading fails it
// returns what it read, cleaned, with the error.
func ReadClean(r io.Reader) ([]byte, error) {
	data, err := io.ReadAll(r)
	data, _ = launcher.Clean(data)
	return data, err
}

// Split returns data's lines without their trailing "\r": the input's line
// n at index n-1. As with strings.Split, input ending in a newline gives a
// last, empty line.
func Split(data []byte) []string {
	lines := strings.Split(string(data), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, "\r")
	}
	return lines
}

// Read is ReadClean then Split: the lines of r without launcher prefixes.
func Read(r io.Reader) ([]string, error) {
	data, err := ReadClean(r)
	return Split(data), err
}

// Scanner feeds a parser its input one line at a time and makes its
// errors. Line is the line being fed (1-based), so a parser's checks
// after the last line name the last line read.
type Scanner struct {
	// Format is the name errors start with ("perftest").
	Format string
	// Malformed is the parser's sentinel for a line it cannot read; a
	// failed read and an over-long line wrap it too.
	Malformed error
	Line      int
}

// Scan reads r (ReadClean) and calls feed with each line, without "\r",
// up to the first error feed returns, which it returns. Lines may be up
// to 4 MiB long (parse.ScanLines); a longer one, or a failed read, is an
// error wrapping Malformed.
func (s *Scanner) Scan(r io.Reader, feed func(line string) error) error {
	data, err := io.ReadAll(r)
	if err != nil {
		return &parse.Error{Format: s.Format, Line: 1, Msg: "read: " + err.Error(), Err: s.Malformed}
	}
	data, _ = launcher.Clean(data)
	return parse.ScanLines(bytes.NewReader(data), s.Format, s.Malformed, &s.Line, feed)
}

// Errorf is a problem of kind (a sentinel) on the line being read.
func (s *Scanner) Errorf(kind error, format string, args ...any) error {
	return s.ErrorAt(s.Line, kind, format, args...)
}

// ErrorAt is a problem of kind on the given line: one read earlier, kept
// until the next line showed it was a problem.
func (s *Scanner) ErrorAt(line int, kind error, format string, args ...any) error {
	return &parse.Error{Format: s.Format, Line: line, Msg: fmt.Sprintf(format, args...), Err: kind}
}
