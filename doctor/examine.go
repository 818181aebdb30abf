package doctor

import (
	"os"
)

// Examine finishes the full doctor's evidence and judges it: with live
// set, it first probes this machine into ev (GatherLive; g.Exe empty: this
// program), then reads the busbw curves and diagnoses. The error is for
// what stopped the probing; the report then is nil.
func Examine(ev *Evidence, g Gather, live bool) (*Report, error) {
	if live {
		if g.Exe == "" {
			exe, err := os.Executable()
			if err != nil {
				return nil, err
			}
			g.Exe = exe
		}
		if err := GatherLive(ev, g); err != nil {
			return nil, err
		}
	}
	ev.Collective = append(ev.Collective, CheckCurves(ev)...)
	return Diagnose(ev), nil
}

// CompareBaselineFile compares r with the saved report.json at path
// (CompareBaseline); the error is for a baseline that does not read.
func (r *Report) CompareBaselineFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	base, err := ReadReport(f)
	f.Close()
	if err != nil {
		return err
	}
	r.CompareBaseline(base, path)
	return nil
}
