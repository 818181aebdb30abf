package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"

	"github.com/commlab/commlab/costmodel"
	"github.com/commlab/commlab/lab/doctor"
	"github.com/commlab/commlab/probes"
	"github.com/commlab/commlab/probes/parse/nccltests"
)

// This file holds `commlab doctor --nccl-tests FILE`: the curve doctor of
// chapter 6 (lab/doctor's curve checks) on one busbw curve, the same
// analysis the full doctor runs on the curves it is given.

// curveInput is one curve read from a file, with where it came from.
type curveInput struct {
	name  string
	curve doctor.Curve
}

// readCurves reads nccl-tests output (text or JSON, every run in it) or a
// commlab run saved with --save (probe nccl, probe nccl-tests, probe torch).
func readCurves(file, coll string, inPlace bool) ([]curveInput, error) {
	data, err := readInput(file)
	if err != nil {
		return nil, err
	}
	if looksLikeRun(data) {
		run, err := probes.ReadRun(bytes.NewReader(data))
		if err != nil {
			return nil, err
		}
		c, err := doctor.CurveFromRun(run, coll, inPlace)
		if err != nil {
			return nil, err
		}
		return []curveInput{{inputName(file), c}}, nil
	}
	res, err := nccltests.Parse(bytes.NewReader(data))
	if err != nil && (res == nil || len(res.Runs) == 0) {
		return nil, err
	}
	var out []curveInput
	for i := range res.Runs {
		c, cerr := doctor.CurveFromNCCLTests(&res.Runs[i])
		if cerr != nil {
			continue
		}
		name := inputName(file)
		if len(res.Runs) > 1 {
			name = fmt.Sprintf("%s (run %d)", name, i+1)
		}
		out = append(out, curveInput{name, c})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: %w (no nccl-tests rows, no commlab run)", inputName(file), doctor.ErrNoCurve)
	}
	return out, nil
}

// looksLikeRun says whether data is a commlab run's JSON: an object with
// "kind" and "samples", which nccl-tests' own JSON does not have.
func looksLikeRun(data []byte) bool {
	var probe struct {
		Kind    *string          `json:"kind"`
		Samples *json.RawMessage `json:"samples"`
	}
	return json.Unmarshal(data, &probe) == nil && probe.Kind != nil && probe.Samples != nil
}

// curveDoctorOutput is what --json prints.
type curveDoctorOutput struct {
	Reports  []doctor.CurveReport `json:"reports"`
	Verdicts []doctor.Verdict     `json:"verdicts"`
	Exit     int                  `json:"exit"`
}

// runDoctorCurve runs the curve doctor. Its exit status is doctor.ExitCode
// of the verdicts (0 fine, 1 warnings, 2 a failure), or 2 for bad input.
func runDoctorCurve(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("commlab doctor", stderr,
		"usage: commlab doctor --nccl-tests FILE [--json] [--preset P] [--gpus N] [--nodes N] [--nccl 2.28] [--nvls=false] [--single-node FILE]",
		"  FILE: nccl-tests output (text or -J JSON; - is standard input) or a commlab run saved with --save.",
		"  Reads each busbw curve against costmodel's NCCL-like tuner for the machine and names its shape:",
		"  large-message plateau, small-message floor, dips, multi-node against single-node. The machine is",
		"  the preset of the GPU the file names (--preset to choose one); without one, or for a collective",
		"  the tuner does not model, the curve is read on its own shape and the report says why.",
		"  Exit status: 0 all fine, 1 warnings, 2 a failure or bad input.")
	file := fs.String("nccl-tests", "", "nccl-tests output or a commlab NCCL run (required)")
	single := fs.String("single-node", "", "a single-node curve of the same collective, to judge a multi-node one against")
	jsonOut := fs.Bool("json", false, "print the reports and verdicts as JSON")
	preset := fs.String("preset", "", "costmodel node preset of the machine (default: the preset of the GPU the file names): "+presetNames())
	gpus := fs.Int("gpus", 0, "GPUs per node (default: the curve's ranks over its nodes)")
	nodes := fs.Int("nodes", 0, "nodes (default: the hosts the curve names, else 1)")
	family := fs.String("nccl", "", "NCCL version or tuner family: 2.19, 2.23 ... 2.28 (default: the file's NCCL version, else the newest modelled, "+costmodel.DefaultNCCL+")")
	nvls := fs.Bool("nvls", true, "NVLS where the node has it; --nvls=false is NCCL_NVLS_ENABLE=0")
	coll := fs.String("coll", "all_reduce", "the collective: for a commlab run, the one to read; for nccl-tests output that does not name it, what it is")
	inPlace := fs.Bool("in-place", false, "for a commlab run: the in-place samples")
	if status, ok := parseOnlyFlags(fs, args, stderr); !ok {
		return status
	}
	if *file == "" {
		return fail(fs, stderr, exitBadInput, "--nccl-tests FILE is required")
	}
	collSet := false
	fs.Visit(func(f *flag.Flag) { collSet = collSet || f.Name == "coll" })
	opt := doctor.DefaultCurveOptions()
	setup := doctor.CurveSetup{Preset: *preset, GPUsPerNode: *gpus, Nodes: *nodes, Family: *family, NVLSOff: !*nvls}
	diagnose := func(in curveInput) (doctor.CurveReport, error) {
		c := in.curve
		if c.Collective == "" && collSet {
			c.Collective, c.CollectiveFrom = *coll, "--coll"
		}
		return doctor.JudgeCurve(c, setup, opt)
	}
	ins, err := readCurves(*file, *coll, *inPlace)
	if err != nil {
		return fail(fs, stderr, exitBadInput, "%v", err)
	}
	var out curveDoctorOutput
	for _, in := range ins {
		rep, err := diagnose(in)
		if err != nil {
			return fail(fs, stderr, exitBadInput, "%s: %v", in.name, err)
		}
		rep.Curve.Source = in.name + ": " + rep.Curve.Source
		out.Reports = append(out.Reports, rep)
		out.Verdicts = append(out.Verdicts, rep.Verdicts...)
	}
	if *single != "" {
		sins, err := readCurves(*single, *coll, *inPlace)
		if err != nil {
			return fail(fs, stderr, exitBadInput, "--single-node: %v", err)
		}
		sin := sins[0]
		sin.curve.Nodes = 1
		ssetup := setup
		ssetup.Nodes, ssetup.GPUsPerNode = 1, max(sin.curve.Ranks, 1)
		srep, err := doctor.JudgeCurve(sin.curve, ssetup, opt)
		if err != nil {
			return fail(fs, stderr, exitBadInput, "--single-node: %v", err)
		}
		for _, rep := range out.Reports {
			if rep.Curve.Nodes > 1 {
				out.Verdicts = append(out.Verdicts, doctor.CompareNodes(rep, srep, opt))
			}
		}
	}
	out.Exit = doctor.ExitCode(out.Verdicts)
	if *jsonOut {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			return fail(fs, stderr, exitFailed, "%v", err)
		}
		return out.Exit
	}
	for i, rep := range out.Reports {
		if i > 0 {
			fmt.Fprintln(stdout)
		}
		fmt.Fprint(stdout, rep.Text())
	}
	for _, v := range out.Verdicts[len(out.Verdicts)-countCompare(out):] {
		fmt.Fprintln(stdout, v)
		for _, e := range v.Evidence {
			fmt.Fprintf(stdout, "    %s\n", e)
		}
	}
	return out.Exit
}

// countCompare is how many verdicts came from --single-node (they follow
// the reports' own).
func countCompare(out curveDoctorOutput) int {
	n := len(out.Verdicts)
	for _, r := range out.Reports {
		n -= len(r.Verdicts)
	}
	return n
}
