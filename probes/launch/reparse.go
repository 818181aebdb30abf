package launch

import (
	"fmt"
	"strings"

	"github.com/commlab/commlab/probes"
)

// Parser reads a tool's output into its run (samples, tool and library
// versions) and returns what it parsed, for --json and a summary.
type Parser func(out string, run *probes.Run) (any, error)

// ParseInto parses out into run with parse, and notes a failure among the
// run's notes ("parse: ..."), where a later Reparse drops it.
func ParseInto(parse Parser, out string, run *probes.Run) (any, error) {
	parsed, err := parse(out, run)
	if err != nil {
		run.Notes = append(run.Notes, "parse: "+err.Error())
	}
	return parsed, err
}

// Reparse loads the run a Tool of kind saved at path and parses again the
// output it kept, so a run recorded before a parser fix gains what the
// fix reads; its provenance (command, date, machine) stays as recorded.
// The error loadErr is the input's fault (unreadable, not such a run);
// err is the parser's.
func Reparse(path, kind string, parse Parser) (run *probes.Run, parsed any, loadErr, err error) {
	run, loadErr = probes.LoadRun(path)
	if loadErr != nil {
		return nil, nil, loadErr, nil
	}
	out, ok := run.Logs["output"]
	if run.Kind != kind || !ok {
		return nil, nil, fmt.Errorf("%s is a %q run without the tool's output; nothing to parse again", path, run.Kind), nil
	}
	run.Samples = nil
	var notes []string
	for _, n := range run.Notes {
		if !strings.HasPrefix(n, "parse: ") {
			notes = append(notes, n)
		}
	}
	run.Notes = notes
	parsed, err = ParseInto(parse, out, run)
	return run, parsed, nil, err
}
