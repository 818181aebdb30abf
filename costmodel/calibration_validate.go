package costmodel

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"text/tabwriter"
)

// This file judges the fitted constants apart from the rows they were
// fitted on: which rows fitted each one and which rows of other sources
// check it (ValidateConstants), and leave-one-source-out cross-validation
// over the whole table, reported per regime (CrossValidate). Report puts
// the table, the verdicts, the constants and the cross-validation together
// as `commlab model calibrate` prints them.

// NetworkFamily names the links a run of nodes nodes of node crosses:
// inside one node "NVLink/NVSwitch" or "PCIe/SHM" (from the in-node link's
// Kind), across nodes the NIC's family from its Kind: "InfiniBand",
// "RoCE", "EFA" or "TCPX/TCPXO".
func NetworkFamily(node Node, nodes int) string {
	if nodes <= 1 {
		if node.Intra.Kind == "nvlink" || node.Intra.Kind == "nvswitch" {
			return "NVLink/NVSwitch"
		}
		return "PCIe/SHM"
	}
	switch node.NIC.Kind {
	case "ib":
		return "InfiniBand"
	case "roce":
		return "RoCE"
	case "efa":
		return "EFA"
	case "tcpx", "tcpxo":
		return "TCPX/TCPXO"
	}
	return node.NIC.Kind
}

// SourceKey is what makes two rows the same source for cross-validation:
// one GitHub issue or pull request thread, one repository's files
// (whatever the file or commit: one team's runs, often of one cluster and
// one method, are not independent of each other), or the recorded runs of
// this project's lab machines (one source, whichever file).
func SourceKey(r PublishedRow) string {
	if r.Host == "lab" {
		return "lab recordings"
	}
	u := strings.TrimPrefix(strings.TrimPrefix(r.Source, "https://"), "github.com/")
	u, _, _ = strings.Cut(u, "#")
	if repo, _, ok := strings.Cut(u, "/blob/"); ok {
		return repo
	}
	return strings.Replace(u, "/pull/", "/issues/", 1)
}

// ConstantCheck is one fitted constant judged apart from its fit.
type ConstantCheck struct {
	Name  string
	Value float64
	// FitRows are the rows it was fitted on (not hold-out, expected
	// within), FitSources their sources.
	FitRows    []string
	FitSources []string
	// CheckRows are hold-out rows the constant bears on whose source is
	// not among FitSources; CheckMedianError the median |error| of the
	// model on them.
	CheckRows        []string
	CheckMedianError float64 `unit:"%"`
	// Validated: fitted on at least 3 rows and checked on at least 2.
	Validated bool
}

// Status says "validated" or "unvalidated (N rows fitted, M checked)".
func (c ConstantCheck) Status() string {
	if c.Validated {
		return "validated"
	}
	return fmt.Sprintf("unvalidated (%d rows fitted, %d checked; needs 3 and 2)", len(c.FitRows), len(c.CheckRows))
}

// minFitRows and minCheckRows are what a constant needs to be validated.
const (
	minFitRows   = 3
	minCheckRows = 2
)

// ValidateConstants reports, for every fitted constant of estimate.go,
// the rows it was fitted on and the hold-out rows of other sources that
// check it.
func ValidateConstants(rows []PublishedRow) ([]ConstantCheck, error) {
	fitSet, err := fitSets(rows, func(r PublishedRow) bool { return !r.Holdout && r.Verdict == "within" }, fitted)
	if err != nil {
		return nil, err
	}
	checkSet, err := fitSets(rows, func(r PublishedRow) bool { return r.Holdout && r.Verdict == "within" }, fitted)
	if err != nil {
		return nil, err
	}
	out := make([]ConstantCheck, 0, len(fitTargets))
	for i, t := range fitTargets {
		k := fitted
		c := ConstantCheck{Name: "Fit" + t.name, Value: *t.get(&k)}
		sources := map[string]bool{}
		for _, r := range fitSet[i] {
			c.FitRows = append(c.FitRows, r.ID)
			if !sources[SourceKey(r)] {
				sources[SourceKey(r)] = true
				c.FitSources = append(c.FitSources, SourceKey(r))
			}
		}
		var check []PublishedRow
		for _, r := range checkSet[i] {
			if !sources[SourceKey(r)] {
				check = append(check, r)
				c.CheckRows = append(c.CheckRows, r.ID)
			}
		}
		cal, err := calibrate(check, fitted)
		if err != nil {
			return nil, err
		}
		errs := make([]float64, 0, len(cal))
		for _, r := range cal {
			errs = append(errs, math.Abs(r.Error))
		}
		c.CheckMedianError = median(errs)
		c.Validated = len(c.FitRows) >= minFitRows && len(c.CheckRows) >= minCheckRows
		out = append(out, c)
	}
	return out, nil
}

// CrossRow is one row predicted by constants fitted without its source.
type CrossRow struct {
	ID       string
	Source   string
	Regime   string
	Nodes    int
	Family   string
	Expected string
	// Error is Model/Measured - 1 under the constants fitted on every
	// other source's rows.
	Error float64 `unit:"%"`
	// Unchecked names a constant the row rests on that no other source
	// informs: it kept the package's value, fitted on this very source,
	// so the row is not cross-validated and stays out of the medians.
	Unchecked string
}

// CrossGroup summarises the cross-validated errors of one group of rows.
type CrossGroup struct {
	Group string
	// Rows counts the group's rows, Sources their sources, Misses its
	// known misses, Unchecked the rows no other source could check.
	Rows, Sources, Misses, Unchecked int
	// Median and Worst are of |error| over every row; MedianWithin over
	// the rows expected within their limit.
	Median       float64 `unit:"%"`
	MedianWithin float64 `unit:"%"`
	Worst        float64 `unit:"%"`
}

// CrossValidation is leave-one-source-out cross-validation over a table.
type CrossValidation struct {
	Rows   []CrossRow
	Groups []CrossGroup
}

// CrossValidate refits the constants once per source on the rows of all
// other sources (expected within, hold-out or not) and predicts that
// source's rows with them; the errors are then summarised per size regime
// (small by time, middle, large), per one node or several, and per network
// family.
func CrossValidate(rows []PublishedRow) (CrossValidation, error) {
	var keys []string
	bySource := map[string][]PublishedRow{}
	for _, r := range rows {
		k := SourceKey(r)
		if _, ok := bySource[k]; !ok {
			keys = append(keys, k)
		}
		bySource[k] = append(bySource[k], r)
	}
	var cv CrossValidation
	for _, key := range keys {
		k, sets, err := fitConstants(rows, func(r PublishedRow) bool { return r.Verdict == "within" && SourceKey(r) != key })
		if err != nil {
			return CrossValidation{}, err
		}
		own, err := fitSets(bySource[key], func(r PublishedRow) bool { return r.Verdict == "within" }, fitted)
		if err != nil {
			return CrossValidation{}, err
		}
		unchecked := map[string]string{}
		for i, t := range fitTargets {
			if len(sets[i]) == 0 {
				for _, r := range own[i] {
					unchecked[r.ID] = "Fit" + t.name
				}
			}
		}
		cal, err := calibrate(bySource[key], k)
		if err != nil {
			return CrossValidation{}, err
		}
		for _, c := range cal {
			cv.Rows = append(cv.Rows, CrossRow{ID: c.ID, Source: key, Regime: c.Regime, Nodes: c.Nodes, Family: c.Family,
				Expected: c.Expected, Error: c.Error, Unchecked: unchecked[c.ID]})
		}
	}
	groups := []struct {
		name string
		in   func(CrossRow) bool
	}{{"all rows", func(CrossRow) bool { return true }}}
	for _, g := range []string{"small", "middle", "large"} {
		groups = append(groups, struct {
			name string
			in   func(CrossRow) bool
		}{g + " (" + map[string]string{"small": "<= 64 KiB, time", "middle": "busbw", "large": ">= 256 MiB, busbw"}[g] + ")",
			func(r CrossRow) bool { return r.Regime == g }})
	}
	groups = append(groups, struct {
		name string
		in   func(CrossRow) bool
	}{"one node", func(r CrossRow) bool { return r.Nodes <= 1 }}, struct {
		name string
		in   func(CrossRow) bool
	}{"several nodes", func(r CrossRow) bool { return r.Nodes > 1 }})
	for _, f := range []string{"NVLink/NVSwitch", "PCIe/SHM", "InfiniBand", "RoCE", "EFA", "TCPX/TCPXO"} {
		groups = append(groups, struct {
			name string
			in   func(CrossRow) bool
		}{f, func(r CrossRow) bool { return r.Family == f }})
	}
	for _, g := range groups {
		cg := CrossGroup{Group: g.name}
		var all, within []float64
		sources := map[string]bool{}
		for _, r := range cv.Rows {
			if !g.in(r) {
				continue
			}
			cg.Rows++
			sources[r.Source] = true
			if r.Unchecked != "" {
				cg.Unchecked++
				continue
			}
			e := math.Abs(r.Error)
			if math.IsNaN(e) {
				// No model figure (a collective without terms): a known miss.
				cg.Misses++
				continue
			}
			all = append(all, e)
			cg.Worst = math.Max(cg.Worst, e)
			if r.Expected == "within" {
				within = append(within, e)
			} else {
				cg.Misses++
			}
		}
		cg.Sources = len(sources)
		cg.Median, cg.MedianWithin = median(all), median(within)
		cv.Groups = append(cv.Groups, cg)
	}
	return cv, nil
}

// median of xs (NaN for none); xs is sorted in place.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	sort.Float64s(xs)
	n := len(xs)
	if n%2 == 1 {
		return xs[n/2]
	}
	return (xs[n/2-1] + xs[n/2]) / 2
}

// String prints one line per group.
func (cv CrossValidation) String() string {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "group\trows\tsources\tknown misses\tnot checkable\tmedian |error|\tmedian, misses excepted\tworst\t")
	pct := func(v float64) string {
		if math.IsNaN(v) {
			return "-"
		}
		return fmt.Sprintf("%.1f%%", 100*v)
	}
	for _, g := range cv.Groups {
		if g.Rows == 0 {
			fmt.Fprintf(tw, "%s\t0\t-\t-\t-\t-\t-\t-\t\n", g.Group)
			continue
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%s\t%s\t%s\t\n", g.Group, g.Rows, g.Sources, g.Misses, g.Unchecked, pct(g.Median),
			pct(g.MedianWithin), pct(g.Worst))
	}
	tw.Flush()
	return b.String()
}

// CalibrationReport is everything `commlab model calibrate` prints: the
// rows by regime, how many are within their limit and which are known
// misses, each constant's validation and the cross-validation.
type CalibrationReport struct {
	Rows      CalibrationRows
	Constants []ConstantCheck
	// Cross is nil when the report covers part of the table (one
	// preset): cross-validation needs every source.
	Cross *CrossValidation
}

// NewCalibrationReport evaluates the model on rows and, when whole is
// true (rows are the whole table), validates the constants and
// cross-validates.
func NewCalibrationReport(rows []PublishedRow, whole bool) (CalibrationReport, error) {
	cal, err := Calibrate(rows)
	if err != nil {
		return CalibrationReport{}, err
	}
	rep := CalibrationReport{Rows: cal}
	if !whole {
		return rep, nil
	}
	if rep.Constants, err = ValidateConstants(rows); err != nil {
		return CalibrationReport{}, err
	}
	cv, err := CrossValidate(rows)
	if err != nil {
		return CalibrationReport{}, err
	}
	rep.Cross = &cv
	return rep, nil
}

// Within counts the rows within their limit.
func (rows CalibrationRows) Within() int {
	n := 0
	for _, r := range rows {
		if r.Pass {
			n++
		}
	}
	return n
}

// Unexpected returns the rows whose verdict differs from the table's: a
// row expected within that is not, or a known miss the model now meets.
func (rows CalibrationRows) Unexpected() CalibrationRows {
	var out CalibrationRows
	for _, r := range rows {
		if !r.AsExpected {
			out = append(out, r)
		}
	}
	return out
}

// Summary says "N of M within their limit" and names the rows outside it
// with their causes.
func (rows CalibrationRows) Summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d of %d rows within their limit (large busbw 10%%, middle busbw 20%%, small time 30%%)", rows.Within(), len(rows))
	misses := 0
	for _, r := range rows {
		if !r.Pass {
			misses++
		}
	}
	if misses == 0 {
		b.WriteString("\n")
		return b.String()
	}
	b.WriteString("; outside it:\n")
	for _, r := range rows {
		if r.Pass {
			continue
		}
		cause := r.Cause
		if r.Expected != "known-miss" {
			cause = "NOT EXPECTED: the table says within"
		}
		errText := fmt.Sprintf("%+.0f%%", 100*r.Error)
		if math.IsNaN(r.Error) {
			errText = "no model"
		}
		fmt.Fprintf(&b, "  %s (%s, %s %s): %s: %s\n", r.ID, r.Machine, r.Collective, Bytes(r.Bytes).IEC(), errText, cause)
	}
	return b.String()
}

// String prints the report.
func (rep CalibrationReport) String() string {
	var b strings.Builder
	holdout := 0
	for _, r := range rep.Rows {
		if r.Holdout {
			holdout++
		}
	}
	fmt.Fprintf(&b, "calibrated model (NCCL's tuner picks; link rates as NCCL rates them; fitted constants below) beside %d published or recorded measurements, %d of them hold-out\n",
		len(rep.Rows), holdout)
	for _, regime := range []string{"small", "middle", "large"} {
		var part CalibrationRows
		for _, r := range rep.Rows {
			if r.Regime == regime {
				part = append(part, r)
			}
		}
		if len(part) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n%s sizes (%d rows):\n%s", regime, len(part), part.String())
	}
	b.WriteString("\n" + rep.Rows.Summary())
	if unexpected := rep.Rows.Unexpected(); len(unexpected) > 0 {
		fmt.Fprintf(&b, "%d rows differ from the table's expected verdict:", len(unexpected))
		for _, r := range unexpected {
			fmt.Fprintf(&b, " %s (expected %s)", r.ID, r.Expected)
		}
		b.WriteString("\n")
	}
	if len(rep.Constants) > 0 {
		b.WriteString("\nfitted constants (fitted on rows not hold-out and expected within; checked on hold-out rows of other sources):\n")
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "constant\tvalue\tfitted on\tsources\tchecked on\tcheck median |error|\tstatus\t")
		for _, c := range rep.Constants {
			med := "-"
			if !math.IsNaN(c.CheckMedianError) {
				med = fmt.Sprintf("%.1f%%", 100*c.CheckMedianError)
			}
			fmt.Fprintf(tw, "%s\t%.3g\t%d rows\t%d\t%d rows\t%s\t%s\t\n", c.Name, c.Value, len(c.FitRows), len(c.FitSources),
				len(c.CheckRows), med, c.Status())
		}
		tw.Flush()
	}
	if rep.Cross != nil {
		b.WriteString("\nleave-one-source-out cross-validation (each source's rows predicted by constants fitted on the others;\n" +
			"'not checkable': rows resting on a constant no other source informs, left out of the medians):\n")
		b.WriteString(rep.Cross.String())
		names := map[string]bool{}
		for _, r := range rep.Cross.Rows {
			if r.Unchecked != "" && !names[r.Unchecked] {
				names[r.Unchecked] = true
			}
		}
		if len(names) > 0 {
			var list []string
			for n := range names {
				list = append(list, n)
			}
			sort.Strings(list)
			fmt.Fprintf(&b, "informed by one source only, so not cross-validated: %s\n", strings.Join(list, ", "))
		}
	}
	return b.String()
}

// CalibrationReportFor is the report over the rows of one preset's
// machines, or over the whole table with the constants' validation and
// the cross-validation for "".
func CalibrationReportFor(preset string) (CalibrationReport, error) {
	if preset == "" {
		rows, err := PublishedMeasurements()
		if err != nil {
			return CalibrationReport{}, err
		}
		return NewCalibrationReport(rows, true)
	}
	cal, err := Calibration(preset)
	if err != nil {
		return CalibrationReport{}, err
	}
	return CalibrationReport{Rows: cal}, nil
}

// FittedConstantStatus maps each fitted constant's name to its Status
// over the published table ("validated", or "unvalidated (...)").
func FittedConstantStatus() (map[string]string, error) {
	rows, err := PublishedMeasurements()
	if err != nil {
		return nil, err
	}
	checks, err := ValidateConstants(rows)
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(checks))
	for _, c := range checks {
		out[c.Name] = c.Status()
	}
	return out, nil
}

// WriteCalibration prints rows, Calibration(preset)'s, as `commlab model
// calibrate` does: the report over them (CalibrationReportFor), or with
// asJSON the rows as indented JSON.
func WriteCalibration(w io.Writer, preset string, rows CalibrationRows, asJSON bool) error {
	if asJSON {
		return writeIndentedJSON(w, rows)
	}
	report, err := CalibrationReportFor(preset)
	if err != nil {
		return err
	}
	fmt.Fprint(w, report)
	return nil
}
