package files

import (
	"errors"
	"fmt"
	"io"

	"github.com/commlab/commlab/parse"
	"github.com/commlab/commlab/parse/torchtrace"
)

// TorchTrace reads torch.profiler Chrome traces and prints each one's
// streams and overlap, over the whole trace or inside the CPU ranges
// analysis.Within names; the result as JSON with opt.JSON.
func TorchTrace(files []string, opt Options, analysis torchtrace.Options, stdout io.Writer) error {
	var out []parsedFile
	var reports []*torchtrace.Report
	var names []string
	err := parseEach(files, opt.stdin(), func(name string, r io.Reader) error {
		tr, perr := torchtrace.Parse(r)
		if errors.Is(perr, parse.ErrFormat) {
			out = append(out, parsedFile{file: name, err: errText(perr), key: "report", value: nil})
			return perr
		}
		rep, aerr := tr.Report(analysis)
		err := errors.Join(perr, aerr)
		out = append(out, parsedFile{file: name, err: errText(err), key: "report", value: rep})
		reports, names = append(reports, rep), append(names, name)
		return err
	})
	if opt.JSON {
		if werr := WriteJSON(stdout, out); werr != nil {
			return &WriteError{werr}
		}
		return err
	}
	for i, rep := range reports {
		if i > 0 {
			fmt.Fprintln(stdout)
		}
		if werr := rep.WriteSummary(stdout, names[i]); werr != nil {
			return &WriteError{werr}
		}
	}
	return err
}

// WriteError is a failure to write the output, not to read the input.
type WriteError struct{ Err error }

func (e *WriteError) Error() string { return e.Err.Error() }
func (e *WriteError) Unwrap() error { return e.Err }
