package doctor

// This file judges an nccl-tests output that carries NCCL's own INFO lines
// (NCCL_DEBUG=INFO printed into the same text, as people post them): the
// curve against the network those lines show, and the network itself.

import (
	"fmt"
	"strings"

	"github.com/commlab/commlab/parse/nccllog"
	"github.com/commlab/commlab/parse/nccltests"
	"github.com/commlab/commlab/probes"
)

// LoggedOutput is such an output judged: the curve's report, and what its
// INFO lines say: the network NCCL chose (nccl-network: a Socket fallback
// across nodes fails) and GPUDirect RDMA (gdr: off, or forced past NCCL's
// distance limit), with the node's topology when given.
type LoggedOutput struct {
	Report CurveReport `json:"report"`
	Log    []Verdict   `json:"log"`
}

// JudgeLoggedOutput reads text, an nccl-tests output with NCCL's INFO
// lines in it. Its first run's curve, told collective (from says who told
// it) where the output names none, is judged by JudgeCurve with the
// setup's network taken from the log when the setup gives none; the log's
// network and GPUDirect RDMA are judged for s.Nodes nodes (the curve's
// hosts when 0), against t, the topology of one of the nodes, when not
// nil.
func JudgeLoggedOutput(text, collective, from string, s CurveSetup, t *probes.Topology) (LoggedOutput, error) {
	res, err := nccltests.Parse(strings.NewReader(text))
	if err != nil && (res == nil || len(res.Runs) == 0) {
		return LoggedOutput{}, fmt.Errorf("doctor: %w", err)
	}
	if len(res.Runs) == 0 {
		return LoggedOutput{}, fmt.Errorf("doctor: %w (no nccl-tests table)", ErrNoCurve)
	}
	run := &res.Runs[0]
	run.Told(collective, from)
	c, err := CurveFromNCCLTests(run)
	if err != nil {
		return LoggedOutput{}, err
	}
	lg, err := nccllog.Parse(strings.NewReader(text))
	if err != nil {
		return LoggedOutput{}, fmt.Errorf("doctor: %w", err)
	}
	if s.Network == "" {
		s.Network, s.NetworkFrom = NetworkFromLog(lg)
	}
	rep, err := JudgeCurve(c, s, DefaultCurveOptions())
	if err != nil {
		return LoggedOutput{}, err
	}
	nodes := max(s.Nodes, rep.Curve.Nodes)
	return LoggedOutput{Report: rep, Log: []Verdict{checkNetwork(lg, t, nil, nodes), checkGDR(t, nil, lg, nodes)}}, nil
}

// Markdown is the report for a notebook (CurveReport.Markdown) with the
// log's verdicts first.
func (o LoggedOutput) Markdown(title string) string {
	r := o.Report
	r.Verdicts = append(append([]Verdict(nil), o.Log...), r.Verdicts...)
	return r.Markdown(title)
}
