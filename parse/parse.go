// Package parse holds what every parser under parse shares: Error,
// which says where in the input a problem was found, and ErrFormat, the one
// sentinel for input that is not the parser's format at all; and the small
// helpers written once for all of them (ScanLines, Int, Clip, the summary
// writers). The parsers themselves live in the packages below it, one per
// format; this package parses nothing and imports only the standard
// library.
//
// What the parsers share beyond that is internal to parse, so that
// notebook cells see only each parser's own API: internal/textinput is the
// one way a line-oriented parser reads its input (read whole, launcher
// prefixes removed by internal/launcher, "\r" trimmed, lines numbered,
// errors as an Error under the parser's format name). It exists because
// each parser had its own copy of that opening, and copies drift.
// internal/jsonmatrix writes a measured matrix's missing (NaN) cells as
// JSON null.
package parse

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// ErrFormat means the input is not the format the parser reads (nccl-tests
// output given to the NCCL log parser, XML given to nvidia-smi's). Every
// parser's "not this format" error wraps it, so one errors.Is check tells
// a wrong file from a damaged one.
var ErrFormat = errors.New("parse: not this format")

// Error is a problem found at one place in the input. The parsers return it
// (or a list of them, joined) with whatever they read, so a damaged file
// still shows its good parts. Err is the sentinel callers branch on with
// errors.Is: ErrFormat, or the parser's own ErrTruncated, ErrMalformed.
type Error struct {
	// Format is the short name that starts the message: the parser's
	// package name ("nccllog"), or the output's for a package that reads
	// several ("topom", "smi").
	Format string
	// File is the input's name, when the parser was given one.
	File string
	// Line is the 1-based line of a text input; 0 when not known.
	Line int
	// Binary says the input is binary: Offset, not Line, locates the problem.
	Binary bool
	Offset int
	// Msg says what went wrong; when empty, Err's text is shown instead.
	Msg string
	Err error
}

// Error reads "format: [file: ][line N: | byte N: ]what", with a single
// format prefix even when Err's own text starts with it.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Format + ": ")
	if e.File != "" {
		b.WriteString(e.File + ": ")
	}
	switch {
	case e.Binary:
		fmt.Fprintf(&b, "byte %d: ", e.Offset)
	case e.Line > 0:
		fmt.Fprintf(&b, "line %d: ", e.Line)
	}
	switch {
	case e.Msg != "":
		b.WriteString(e.Msg)
	case e.Err != nil:
		b.WriteString(strings.TrimPrefix(e.Err.Error(), e.Format+": "))
	}
	return b.String()
}

// Unwrap returns Err, for errors.Is and errors.As.
func (e *Error) Unwrap() error { return e.Err }

// WriteBuffered calls write with a buffer, then copies what it wrote to w
// in one Write and returns that Write's error. The parsers' summaries
// print line by line with fmt.Fprintf, which callers rarely check; this
// checks once.
func WriteBuffered(w io.Writer, write func(w io.Writer)) error {
	var b bytes.Buffer
	write(&b)
	_, err := w.Write(b.Bytes())
	return err
}

// SummaryText returns what write (a result's WriteSummary) writes about an
// input called name, without its trailing newline: the text/plain form of
// a parsed result in a notebook and in fmt.Println.
func SummaryText(name string, write func(w io.Writer, name string) error) string {
	var b bytes.Buffer
	if err := write(&b, name); err != nil {
		return name + ": " + err.Error()
	}
	return strings.TrimRight(b.String(), "\n")
}

// WriteNothingParsed writes the summary of a nil result, "file: nothing
// parsed", and returns the Write's error.
func WriteNothingParsed(w io.Writer, file string) error {
	_, err := fmt.Fprintf(w, "%s: nothing parsed\n", file)
	return err
}

// Clip shortens s to its first n bytes and "...", for quoting a line of
// the input in an error.
func Clip(s string, n int) string {
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}

// Int is the decimal integer in s, or 0 when s is not one: for fields a
// parser has already matched against a pattern of digits.
func Int(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// Int64 is Int for 64-bit fields (byte counts, timestamps).
func Int64(s string) int64 {
	n, _ := strconv.ParseInt(s, 10, 64)
	return n
}

// ScanLines calls feed with each line of r, without its trailing "\r",
// counting the lines in *line (from 1), and stops at the first error feed
// returns, which it returns. Lines may be up to 4 MiB long. When reading
// fails it returns an *Error of format for the line after the last one
// read, wrapping malformed (the parser's own sentinel).
func ScanLines(r io.Reader, format string, malformed error, line *int, feed func(text string) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 4*1024*1024)
	for sc.Scan() {
		*line++
		if err := feed(strings.TrimRight(sc.Text(), "\r")); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return &Error{Format: format, Line: *line + 1, Msg: err.Error(), Err: malformed}
	}
	return nil
}
