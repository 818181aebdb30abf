package costmodel

import (
	"bufio"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
)

// This file holds the model against published measurements: the table
// (testdata/published.tsv, embedded), each row's prediction and error, and
// the fit of the constants NCCL does not give (estimate.go).

//go:embed testdata/published.tsv
var publishedTSV string

// PublishedRow is one measured result: the machine, what ran, the number
// exactly as its source prints it and where the source says it.
type PublishedRow struct {
	ID string
	// Holdout rows were left out of every fit: they check the constants.
	Holdout bool
	// Verdict is what the model is expected to show on the row: "within"
	// its limit, or "known-miss", with Cause saying in one line why (the
	// term the model lacks). Known misses inform no fitted constant.
	Verdict string
	Cause   string
	// Regime is derived from the size: "small" (at most 64 KiB, judged by
	// time, within 30%), "large" (at least 256 MiB, busbw within 10%) or
	// "middle" (busbw within 20%).
	Regime  string
	Machine string
	Preset  string
	// GPUsPerNode and Nodes say how many GPUs of the preset ran.
	GPUsPerNode int
	Nodes       int
	// NICs and NIC, when set, replace the preset's network.
	NICs int
	NIC  string
	// NCCL is the version the source names, "" when it names none;
	// NCCLTests the nccl-tests version it names; Flags the -c/-w/-n (and
	// other) options it shows.
	NCCL       string
	NCCLTests  string
	Flags      string
	Collective Collective
	// Algorithm and Protocol are "auto" or what NCCL_ALGO / NCCL_PROTO
	// forced; NVLS is "on", "off" or "" (the preset's).
	Algorithm string
	Protocol  string
	NVLS      string
	// P2P is "off" where the run had no peer-to-peer between GPUs
	// (NCCL_P2P_DISABLE=1, or a driver without it: NCCL's SHM transport),
	// "on" where it had peer-to-peer over PCIe on a preset without it (a
	// patched driver), "" for the preset's.
	P2P string
	// Bytes is nccl-tests' size; SizePublished the size as the source
	// wrote it.
	Bytes         float64 `unit:"B"`
	SizePublished string
	// Metric is "busbw" (GB/s) or "time_us"; Value the number as published.
	Metric string
	Value  float64
	// ThreadGPUs and Host describe the harness (see Harness).
	ThreadGPUs int
	Host       string
	Source     string
	SourceDate string
	Locator    string
}

// publishedColumns is the table's header, in order.
var publishedColumns = []string{"id", "holdout", "verdict", "cause", "machine", "preset", "gpus_per_node", "nodes", "nics", "nic",
	"nccl", "nccl_tests", "flags", "collective", "algo", "proto", "nvls", "p2p", "size_bytes", "size_published", "metric", "value", "thread_gpus",
	"host", "source", "source_date", "locator"}

// ParsePublished reads a table in testdata/published.tsv's format:
// '#' comment lines, a header naming publishedColumns, then one
// tab-separated row per result. Every row is checked; the first bad one
// is reported with its line number.
func ParsePublished(r io.Reader) ([]PublishedRow, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	var rows []PublishedRow
	header := false
	ids := map[string]int{}
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(text) == "" || strings.HasPrefix(text, "#") {
			continue
		}
		f := strings.Split(text, "\t")
		if !header {
			if strings.Join(f, "\t") != strings.Join(publishedColumns, "\t") {
				return nil, fmt.Errorf("%w: published table line %d: header %q, want %q", ErrParams, line, text,
					strings.Join(publishedColumns, "\t"))
			}
			header = true
			continue
		}
		row, err := parsePublishedRow(f)
		if err != nil {
			return nil, fmt.Errorf("%w: published table line %d: %v", ErrParams, line, err)
		}
		if prev, dup := ids[row.ID]; dup {
			return nil, fmt.Errorf("%w: published table line %d: id %q already on line %d", ErrParams, line, row.ID, prev)
		}
		ids[row.ID] = line
		rows = append(rows, row)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("%w: published table line %d: longer than 1 MiB", ErrParams, line+1)
		}
		return nil, fmt.Errorf("costmodel: reading the published table: %w", err)
	}
	if !header {
		return nil, fmt.Errorf("%w: published table: no header line", ErrParams)
	}
	return rows, nil
}

func parsePublishedRow(f []string) (PublishedRow, error) {
	if len(f) != len(publishedColumns) {
		return PublishedRow{}, fmt.Errorf("%d fields, want %d", len(f), len(publishedColumns))
	}
	get := func(name string) string {
		for i, c := range publishedColumns {
			if c == name {
				return strings.TrimSpace(f[i])
			}
		}
		return ""
	}
	var r PublishedRow
	var err error
	r.ID = get("id")
	if r.ID == "" {
		return r, fmt.Errorf("empty id")
	}
	switch get("holdout") {
	case "yes":
		r.Holdout = true
	case "no":
	default:
		return r, fmt.Errorf("%s: holdout %q, want yes or no", r.ID, get("holdout"))
	}
	r.Verdict, r.Cause = get("verdict"), get("cause")
	switch {
	case r.Verdict != "within" && r.Verdict != "known-miss":
		return r, fmt.Errorf("%s: verdict %q, want within or known-miss", r.ID, r.Verdict)
	case r.Verdict == "known-miss" && r.Cause == "":
		return r, fmt.Errorf("%s: a known-miss needs its cause", r.ID)
	case r.Verdict == "within" && r.Cause != "":
		return r, fmt.Errorf("%s: cause %q on a row expected within its limit", r.ID, r.Cause)
	}
	r.Machine, r.Preset, r.NIC, r.NCCL = get("machine"), get("preset"), get("nic"), get("nccl")
	r.NCCLTests, r.Flags = get("nccl_tests"), get("flags")
	ints := []struct {
		name     string
		dst      *int
		min      int
		optional bool
	}{{"gpus_per_node", &r.GPUsPerNode, 1, false}, {"nodes", &r.Nodes, 1, false}, {"nics", &r.NICs, 1, true},
		{"thread_gpus", &r.ThreadGPUs, 1, true}}
	for _, in := range ints {
		v := get(in.name)
		if v == "" && in.optional {
			continue
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < in.min || n > 1<<20 {
			return r, fmt.Errorf("%s: %s %q, want a whole number >= %d", r.ID, in.name, v, in.min)
		}
		*in.dst = n
	}
	if r.Collective, err = ParseCollective(get("collective")); err != nil {
		return r, fmt.Errorf("%s: %v", r.ID, err)
	}
	r.Algorithm, r.Protocol, r.NVLS = get("algo"), get("proto"), get("nvls")
	if _, err := NCCLAlgorithm(r.Algorithm); err != nil || r.Algorithm == "" {
		return r, fmt.Errorf("%s: algo %q: want auto or an NCCL algorithm", r.ID, r.Algorithm)
	}
	if _, err := NCCLProtocol(r.Protocol); err != nil || r.Protocol == "" {
		return r, fmt.Errorf("%s: proto %q: want auto, simple, ll or ll128", r.ID, r.Protocol)
	}
	if r.NVLS != "" && r.NVLS != "on" && r.NVLS != "off" {
		return r, fmt.Errorf("%s: nvls %q, want on, off or empty", r.ID, r.NVLS)
	}
	if r.P2P = get("p2p"); r.P2P != "" && r.P2P != "on" && r.P2P != "off" {
		return r, fmt.Errorf("%s: p2p %q, want on, off or empty", r.ID, r.P2P)
	}
	if r.Bytes, err = strconv.ParseFloat(get("size_bytes"), 64); err != nil || !(r.Bytes > 0) || r.Bytes > 1<<50 {
		return r, fmt.Errorf("%s: size_bytes %q, want a size in bytes above 0", r.ID, get("size_bytes"))
	}
	r.Regime = SizeRegime(r.Bytes)
	r.SizePublished = get("size_published")
	r.Metric = get("metric")
	if r.Metric != "busbw" && r.Metric != "time_us" {
		return r, fmt.Errorf("%s: metric %q, want busbw or time_us", r.ID, r.Metric)
	}
	if r.Value, err = strconv.ParseFloat(get("value"), 64); err != nil || !(r.Value > 0) || math.IsInf(r.Value, 0) {
		return r, fmt.Errorf("%s: value %q, want a number above 0", r.ID, get("value"))
	}
	r.Host = get("host")
	if r.Host != "" && r.Host != "lab" {
		return r, fmt.Errorf("%s: host %q, want lab or empty", r.ID, r.Host)
	}
	r.Source, r.SourceDate, r.Locator = get("source"), get("source_date"), get("locator")
	if r.Source == "" || r.Locator == "" {
		return r, fmt.Errorf("%s: a row needs its source and a locator", r.ID)
	}
	return r, nil
}

// PublishedMeasurements returns the table compiled into the package
// (testdata/published.tsv).
func PublishedMeasurements() ([]PublishedRow, error) {
	return ParsePublished(strings.NewReader(publishedTSV))
}

// machine builds the row's Machine.
func (r PublishedRow) machine() (Machine, error) {
	node, err := r.Node()
	if err != nil {
		return Machine{}, err
	}
	if r.NVLS == "on" && !node.NVLS {
		return Machine{}, fmt.Errorf("%w: %s: NVLS on, but preset %s has no NVLink SHARP", ErrParams, r.ID, r.Preset)
	}
	return Machine{Node: node, GPUsPerNode: r.GPUsPerNode, Nodes: r.Nodes, NCCL: r.NCCL, NVLSOff: r.NVLS == "off",
		Harness: Harness{ThreadGPUs: r.ThreadGPUs, Host: r.Host}}, nil
}

// measured returns the row's time in microseconds and busbw in GB/s.
func (r PublishedRow) measured() (timeUs, busbw float64) {
	factor := BusBWFactor(r.Collective, r.GPUsPerNode*r.Nodes)
	if r.Metric == "busbw" {
		return r.Bytes * factor / (r.Value * 1e3), r.Value
	}
	return r.Value, r.Bytes * factor / (r.Value * 1e3)
}

// Size regimes of the calibration: a small operation is judged by its
// time, the others by bus bandwidth.
const (
	smallMax = 64 << 10
	largeMin = 256 << 20
)

// SizeRegime names the regime of an nccl-tests size in bytes: "small"
// (at most 64 KiB), "large" (at least 256 MiB) or "middle".
func SizeRegime(bytes float64) string {
	switch {
	case bytes <= smallMax:
		return "small"
	case bytes >= largeMin:
		return "large"
	}
	return "middle"
}

// Limit is the largest relative error the model may show on a row: 30%
// of a small operation's time, 20% of a middle size's bus bandwidth, 10%
// of a large one's.
func (r PublishedRow) Limit() float64 {
	switch r.Regime {
	case "small":
		return 0.30
	case "middle":
		return 0.20
	}
	return 0.10
}

// CalibrationRow is the model beside one published measurement: busbw in
// GB/s for a plateau, time in microseconds for a latency.
type CalibrationRow struct {
	ID      string
	Holdout bool
	Machine string
	Preset  string
	GPUs    int
	Nodes   int
	NCCL    string
	// Collective, Bytes and Forced say what ran; Pick is the model's
	// algorithm/protocol.
	Collective Collective
	Bytes      float64 `unit:"B"`
	Forced     string
	Pick       string
	// Unit is "GB/s" (busbw) or "µs" (time per operation).
	Unit     string
	Measured float64
	Model    float64
	// Error is Model/Measured - 1; Limit the most allowed (10%, 20% or
	// 30%, by Regime); Pass says the error is within it.
	Error float64 `unit:"%"`
	Limit float64 `unit:"%"`
	Pass  bool
	// Regime is "small", "middle" or "large" (SizeRegime); Family the
	// network family (NetworkFamily).
	Regime string
	Family string
	// Expected is the row's verdict in the table ("within" or
	// "known-miss") and Cause a known miss's cause; AsExpected says the
	// model did what the table expects (Pass for "within", not Pass for
	// "known-miss").
	Expected   string
	Cause      string `table:"-"`
	AsExpected bool
	Source     string `table:"-"`
}

// CalibrationRows renders as a table.
type CalibrationRows []CalibrationRow

// String prints the rows as an aligned table, numbers to four digits.
func (rows CalibrationRows) String() string {
	if len(rows) == 0 {
		return "no published measurement for this machine"
	}
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "id\tmachine\tNCCL\tcollective\tsize\tforced\tmodel pick\tmeasured\tmodel\terror\tlimit\t")
	for _, r := range rows {
		id := r.ID
		if r.Holdout {
			id += " (hold-out)"
		}
		verdict := ""
		switch {
		case !r.Pass && r.Expected == "known-miss":
			verdict = " known miss"
		case !r.Pass:
			verdict = " FAIL"
		case r.Expected == "known-miss":
			verdict = " (miss fixed?)"
		}
		nccl := r.NCCL
		if nccl == "" {
			nccl = "-"
		}
		model, errText := fmt.Sprintf("%.4g %s", r.Model, r.Unit), fmt.Sprintf("%+.1f%%", 100*r.Error)
		if math.IsNaN(r.Model) {
			model, errText = "-", "-" // a collective the model has no terms for
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%.4g %s\t%s\t%s%s\t%.0f%%\t\n", id, r.Machine, nccl, r.Collective,
			Bytes(r.Bytes).IEC(), r.Forced, r.Pick, r.Measured, r.Unit, model, errText, verdict, 100*r.Limit)
	}
	tw.Flush()
	return b.String()
}

// Calibrate evaluates the model on every row.
func Calibrate(rows []PublishedRow) (CalibrationRows, error) {
	return calibrate(rows, fitted)
}

func calibrate(rows []PublishedRow, k calibration) (CalibrationRows, error) {
	out := make(CalibrationRows, 0, len(rows))
	for _, r := range rows {
		m, err := r.machine()
		if err != nil {
			return nil, fmt.Errorf("costmodel: calibration row %s: %w", r.ID, err)
		}
		e, err := m.estimate(r.Collective, r.Bytes, r.Algorithm, r.Protocol, k)
		if errors.Is(err, ErrUnsupported) && r.Verdict == "known-miss" {
			// A collective the model has no terms for stays a row: a
			// known miss without a model figure.
			e, err = Estimate{Algorithm: "no model", TimeUs: math.NaN(), BusBWGBps: math.NaN()}, nil
		}
		if err != nil {
			return nil, fmt.Errorf("costmodel: calibration row %s: %w", r.ID, err)
		}
		timeUs, busbw := r.measured()
		c := CalibrationRow{ID: r.ID, Holdout: r.Holdout, Machine: r.Machine, Preset: r.Preset, GPUs: r.GPUsPerNode * r.Nodes,
			Nodes: r.Nodes, NCCL: r.NCCL, Collective: r.Collective, Bytes: r.Bytes, Pick: strings.TrimSuffix(e.Algorithm+"/"+e.Protocol, "/"),
			Limit: r.Limit(), Source: r.Source, Regime: r.Regime, Family: NetworkFamily(m.Node, r.Nodes),
			Expected: r.Verdict, Cause: r.Cause}
		c.Forced = joinNonEmpty("/", strings.TrimPrefix(r.Algorithm, "auto"), strings.TrimPrefix(r.Protocol, "auto"))
		if c.Forced == "" {
			c.Forced = "auto"
		}
		if r.Regime != "small" {
			c.Unit, c.Measured, c.Model = "GB/s", busbw, e.BusBWGBps
		} else {
			c.Unit, c.Measured, c.Model = "µs", timeUs, e.TimeUs
		}
		c.Error = c.Model/c.Measured - 1
		c.Pass = math.Abs(c.Error) <= c.Limit
		c.AsExpected = c.Pass == (r.Verdict == "within")
		out = append(out, c)
	}
	return out, nil
}

// Calibration returns the model beside every published measurement of
// machines of one preset (all of them for ""), as a table: the call a
// chapter makes to show "model beside published measurement" for the
// reader's kind of machine. A preset without measurements gives no rows.
func Calibration(preset string) (CalibrationRows, error) {
	rows, err := PublishedMeasurements()
	if err != nil {
		return nil, err
	}
	if preset != "" {
		node, err := NodeByName(preset)
		if err != nil {
			return nil, err
		}
		var kept []PublishedRow
		for _, r := range rows {
			if r.Preset == node.Name {
				kept = append(kept, r)
			}
		}
		rows = kept
	}
	return Calibrate(rows)
}

// Fit is what FitCalibration finds: each constant of estimate.go and the
// rows it was fitted on.
type Fit struct {
	RingEfficiency  float64
	NetEfficiency   float64
	GatherLocalStep float64
	LLEfficiency    float64
	SHMEfficiency   float64
	IssueUs         float64
	LabIssueUs      float64
	EFALatency      float64 `unit:"s"`
	TCPXOLatency    float64 `unit:"s"`
	NVLSFillLoops   float64
	RingFillLoops   float64
	// Rows names, per constant, the non-hold-out rows it was fitted on.
	Rows map[string][]string
	// WorstError is the largest |Model/Measured - 1| over those rows.
	WorstError float64 `unit:"%"`
}

// fitTarget is one constant: which rows inform it and where to look.
type fitTarget struct {
	name string
	get  func(*calibration) *float64
	// rows says whether a row informs the constant; pick is the model's
	// algorithm for it.
	rows   func(r PublishedRow, n Node, pick string) bool
	lo, hi float64
}

var fitTargets = []fitTarget{
	{"RingEfficiency", func(k *calibration) *float64 { return &k.ring },
		func(r PublishedRow, n Node, pick string) bool {
			return r.Regime == "large" && r.Nodes == 1 && n.Intra.Kind != "pcie" && r.Collective == AllReduce && r.Protocol != "ll" &&
				(pick == "Ring" || pick == "Tree")
		}, 0.3, 1.2},
	{"NetEfficiency", func(k *calibration) *float64 { return &k.net },
		func(r PublishedRow, n Node, pick string) bool { return r.Regime == "large" && r.Nodes > 1 }, 0.3, 1.2},
	{"GatherLocalStep", func(k *calibration) *float64 { return &k.gatherStep },
		func(r PublishedRow, n Node, pick string) bool {
			return r.Regime == "large" && r.Nodes == 1 && gatherRing(r.Collective, pick) && r.Protocol != "ll"
		}, 0, 3},
	{"LLEfficiency", func(k *calibration) *float64 { return &k.ll },
		func(r PublishedRow, n Node, pick string) bool { return r.Regime == "large" && r.Protocol == "ll" }, 0.2, 1.2},
	{"SHMEfficiency", func(k *calibration) *float64 { return &k.shm },
		func(r PublishedRow, n Node, pick string) bool { return r.Regime == "large" && n.NoP2P }, 0.2, 1.2},
	{"IssueUs", func(k *calibration) *float64 { return &k.issue },
		func(r PublishedRow, n Node, pick string) bool {
			return r.Regime == "small" && r.Host == "" && r.Nodes == 1
		}, 0.5, 30},
	{"LabIssueUs", func(k *calibration) *float64 { return &k.labIssue },
		func(r PublishedRow, n Node, pick string) bool { return r.Regime == "small" && r.Host == "lab" }, 0.5, 30},
	{"EFALatency", func(k *calibration) *float64 { return &k.efa },
		func(r PublishedRow, n Node, pick string) bool {
			return r.Regime == "small" && r.Nodes > 1 && n.NIC.Kind == "efa"
		}, 0, 200e-6},
	{"TCPXOLatency", func(k *calibration) *float64 { return &k.tcpxo },
		func(r PublishedRow, n Node, pick string) bool {
			return r.Regime == "small" && r.Nodes > 1 && (n.NIC.Kind == "tcpxo" || n.NIC.Kind == "tcpx")
		}, 0, 200e-6},
	{"RingFillLoops", func(k *calibration) *float64 { return &k.ringFill },
		func(r PublishedRow, n Node, pick string) bool {
			return r.Regime != "small" && r.Nodes == 1 && pick == "Ring"
		}, 0, 20},
	{"NVLSFillLoops", func(k *calibration) *float64 { return &k.nvlsFill },
		func(r PublishedRow, n Node, pick string) bool {
			return r.Regime != "small" && (pick == "NVLS" || pick == "NVLSTree")
		}, 0, 20},
}

// FitCalibration fits estimate.go's constants to the rows that are not
// hold-out and are expected within their limit (a known miss lacks a term
// no constant stands for): each constant in turn takes the value between
// its bounds that minimises the sum of log(Model/Measured)^2 over its
// rows (a golden-section search: each row's prediction moves one way with
// the constant, so the sum has one minimum), the others held; three
// rounds, as a row can depend on two constants.
// Results are rounded to three significant digits. A constant with no
// rows keeps the package's value.
func FitCalibration(rows []PublishedRow) (Fit, error) {
	k, sets, err := fitConstants(rows, func(r PublishedRow) bool { return !r.Holdout && r.Verdict == "within" })
	if err != nil {
		return Fit{}, err
	}
	fit := Fit{Rows: map[string][]string{}}
	fit.RingEfficiency = k.ring
	fit.NetEfficiency, fit.GatherLocalStep, fit.LLEfficiency, fit.SHMEfficiency = k.net, k.gatherStep, k.ll, k.shm
	fit.IssueUs, fit.LabIssueUs, fit.EFALatency, fit.TCPXOLatency = k.issue, k.labIssue, k.efa, k.tcpxo
	fit.NVLSFillLoops = k.nvlsFill
	fit.RingFillLoops = k.ringFill
	for i, t := range fitTargets {
		cal, err := calibrate(sets[i], k)
		if err != nil {
			return Fit{}, err
		}
		for _, c := range cal {
			fit.WorstError = math.Max(fit.WorstError, math.Abs(c.Error))
			fit.Rows[t.name] = append(fit.Rows[t.name], c.ID)
		}
		sort.Strings(fit.Rows[t.name])
	}
	return fit, nil
}

// fitConstants fits every constant on the rows use accepts (see
// FitCalibration) and returns the constants and, per fitTargets entry,
// the rows it was fitted on.
func fitConstants(rows []PublishedRow, use func(PublishedRow) bool) (calibration, [][]PublishedRow, error) {
	k := fitted
	sets, err := fitSets(rows, use, k)
	if err != nil {
		return k, nil, err
	}
	score := func(set []PublishedRow, kk calibration) (float64, error) {
		cal, err := calibrate(set, kk)
		if err != nil {
			return 0, err
		}
		sum := 0.0
		for _, c := range cal {
			l := math.Log(c.Model / c.Measured)
			sum += l * l
		}
		return sum, nil
	}
	for round := 0; round < 3; round++ {
		for i, t := range fitTargets {
			if len(sets[i]) == 0 {
				continue
			}
			objective := func(v float64) (float64, error) {
				kk := k
				*t.get(&kk) = v
				return score(sets[i], kk)
			}
			best, err := goldenMin(objective, t.lo, t.hi)
			if err != nil {
				return k, nil, err
			}
			*t.get(&k) = roundSignificant(best, 3)
		}
	}
	return k, sets, nil
}

// fitSets sorts the rows use accepts into the constants they inform.
func fitSets(rows []PublishedRow, use func(PublishedRow) bool, k calibration) ([][]PublishedRow, error) {
	sets := make([][]PublishedRow, len(fitTargets))
	for _, r := range rows {
		if !use(r) {
			continue
		}
		m, err := r.machine()
		if err != nil {
			return nil, fmt.Errorf("costmodel: fit, row %s: %w", r.ID, err)
		}
		e, err := m.estimate(r.Collective, r.Bytes, r.Algorithm, r.Protocol, k)
		if err != nil {
			return nil, fmt.Errorf("costmodel: fit, row %s: %w", r.ID, err)
		}
		for i, t := range fitTargets {
			if t.rows(r, m.Node, e.Algorithm) {
				sets[i] = append(sets[i], r)
			}
		}
	}
	return sets, nil
}

// goldenMin finds the minimum of f on [lo, hi] by golden-section search,
// to a millionth of the interval.
func goldenMin(f func(float64) (float64, error), lo, hi float64) (float64, error) {
	phi := (math.Sqrt(5) - 1) / 2
	a, b := lo, hi
	c, d := b-phi*(b-a), a+phi*(b-a)
	fc, err := f(c)
	if err != nil {
		return 0, err
	}
	fd, err := f(d)
	if err != nil {
		return 0, err
	}
	for b-a > 1e-6*(hi-lo) {
		if fc <= fd {
			b, d, fd = d, c, fc
			c = b - phi*(b-a)
			if fc, err = f(c); err != nil {
				return 0, err
			}
		} else {
			a, c, fc = c, d, fd
			d = a + phi*(b-a)
			if fd, err = f(d); err != nil {
				return 0, err
			}
		}
	}
	return (a + b) / 2, nil
}

func roundSignificant(v float64, digits int) float64 {
	if v == 0 || math.IsInf(v, 0) || math.IsNaN(v) {
		return v
	}
	scale := math.Pow(10, float64(digits)-math.Ceil(math.Log10(math.Abs(v))))
	return math.Round(v*scale) / scale
}
