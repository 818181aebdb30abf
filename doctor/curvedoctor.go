package doctor

import (
	"encoding/json"
	"fmt"
	"io"
)

// CurveDoctor is the curve doctor's work on one file, as `commlab doctor
// --nccl-tests FILE` runs it: each curve the file holds judged against the
// machine Setup describes, and, with a single-node curve, every multi-node
// one compared with it.
type CurveDoctor struct {
	Setup CurveSetup
	// Collective, when set, names a curve whose file does not (--coll).
	Collective string
	// Single reads the single-node curve to compare with; nil for none.
	Single func() ([]NamedCurve, error)
}

// CurveDoctorOutput is what the curve doctor found, as --json prints it.
type CurveDoctorOutput struct {
	Reports  []CurveReport `json:"reports"`
	Verdicts []Verdict     `json:"verdicts"`
	Exit     int           `json:"exit"`
}

// Judge judges the curves read from one file. Its errors are the input's
// fault (a curve the model cannot read, a missing single-node file).
func (d CurveDoctor) Judge(curves []NamedCurve) (CurveDoctorOutput, error) {
	opt := DefaultCurveOptions()
	var out CurveDoctorOutput
	for _, in := range curves {
		c := in.Curve
		if c.Collective == "" && d.Collective != "" {
			c.Collective, c.CollectiveFrom = d.Collective, "--coll"
			if in.run != nil && in.run.Told(d.Collective, "--coll") {
				// The columns give the rank count once the collective is known.
				if told, err := CurveFromNCCLTests(in.run); err == nil {
					c = told
				}
			}
		}
		rep, err := JudgeCurve(c, d.Setup, opt)
		if err != nil {
			return out, fmt.Errorf("%s: %w", in.Name, err)
		}
		rep.Curve.Source = in.Name + ": " + rep.Curve.Source
		out.Reports = append(out.Reports, rep)
		out.Verdicts = append(out.Verdicts, rep.Verdicts...)
	}
	if d.Single != nil {
		sins, err := d.Single()
		if err != nil {
			return out, fmt.Errorf("--single-node: %w", err)
		}
		sin := sins[0]
		sin.Curve.Nodes = 1
		ssetup := d.Setup
		ssetup.Nodes, ssetup.GPUsPerNode = 1, max(sin.Curve.Ranks, 1)
		srep, err := JudgeCurve(sin.Curve, ssetup, opt)
		if err != nil {
			return out, fmt.Errorf("--single-node: %w", err)
		}
		for _, rep := range out.Reports {
			if rep.Curve.Nodes > 1 {
				out.Verdicts = append(out.Verdicts, CompareNodes(rep, srep, opt))
			}
		}
	}
	out.Exit = ExitCode(out.Verdicts)
	return out, nil
}

// Write prints what the curve doctor found: as text (WriteText), or as
// indented JSON.
func (out CurveDoctorOutput) Write(w io.Writer, asJSON bool) error {
	if !asJSON {
		out.WriteText(w)
		return nil
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		return fmt.Errorf("doctor: %w", err)
	}
	return nil
}

// WriteText prints the reports, then the verdicts of the comparison with
// the single-node curve, each with its evidence.
func (out CurveDoctorOutput) WriteText(w io.Writer) {
	for i, rep := range out.Reports {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprint(w, rep.Text())
	}
	compared := len(out.Verdicts)
	for _, r := range out.Reports {
		compared -= len(r.Verdicts)
	}
	for _, v := range out.Verdicts[len(out.Verdicts)-compared:] {
		fmt.Fprintln(w, v)
		for _, e := range v.Evidence {
			fmt.Fprintf(w, "    %s\n", e)
		}
	}
}
