package doctor

// This file renders a curve report for a terminal or a notebook.

import (
	"fmt"
	"strings"
)

// Text renders the report for a terminal or a notebook: the verdicts with
// their evidence and next steps.
func (r CurveReport) Text() string {
	var b strings.Builder
	coll := r.Curve.Collective
	if coll == "" {
		coll = "collective not told"
	}
	if len(r.Curve.Points) == 0 {
		fmt.Fprintf(&b, "curve: %s, %s, no points\n", r.Curve.Source, coll)
		return b.String()
	}
	fmt.Fprintf(&b, "curve: %s, %s, %d rank(s), %d node(s), %d sizes %s\n", r.Curve.Source, coll, r.Curve.Ranks, r.Curve.Nodes,
		len(r.Curve.Points), sizeRange(r.Curve.Points[0].Bytes, r.Curve.Points[len(r.Curve.Points)-1].Bytes))
	if r.Curve.CollectiveFrom != "" && r.Curve.CollectiveFrom != "program name" && r.Curve.CollectiveFrom != "the run's samples" {
		fmt.Fprintf(&b, "collective from %s\n", r.Curve.CollectiveFrom)
	}
	if r.Curve.RanksFrom != "" && r.Curve.RanksFrom != "device lines" && r.Curve.RanksFrom != "the run's samples" {
		fmt.Fprintf(&b, "ranks from %s\n", r.Curve.RanksFrom)
	}
	if r.PresetFrom != "" {
		fmt.Fprintf(&b, "preset: %s\n", r.presetLine())
	}
	if r.Model.Source != "" {
		fmt.Fprintf(&b, "model: %s\n", r.Model.Source)
	}
	if r.ShapeOnly != "" {
		fmt.Fprintf(&b, "shape only: %s\n", r.ShapeOnly)
	}
	for _, n := range r.Curve.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	if same := sameSkip(r.Verdicts); same != "" {
		// one reason for every check (one rank): say it once
		var checks []string
		for _, v := range r.Verdicts {
			checks = append(checks, v.Check)
		}
		fmt.Fprintf(&b, "[skipped] %s/%s: %s\n", LayerCollective, strings.Join(checks, ", "), same)
		return b.String()
	}
	for _, v := range r.Verdicts {
		fmt.Fprintln(&b, v)
		for _, e := range v.Evidence {
			fmt.Fprintf(&b, "    %s\n", e)
		}
		if v.Next != "" {
			fmt.Fprintf(&b, "    next: %s\n", v.Next)
		}
	}
	return b.String()
}

func (r CurveReport) presetLine() string {
	if r.Preset == "" {
		return r.PresetFrom
	}
	return r.Preset + " (" + r.PresetFrom + ")"
}

// sameSkip returns the summary every verdict shares when all are skipped
// for one reason, else "".
func sameSkip(vs []Verdict) string {
	if len(vs) < 2 {
		return ""
	}
	for _, v := range vs {
		if v.Status != Skipped || v.Summary != vs[0].Summary || len(v.Evidence) > 0 {
			return ""
		}
	}
	return vs[0].Summary
}

// String is Text without its trailing newline.
func (r CurveReport) String() string { return strings.TrimRight(r.Text(), "\n") }
