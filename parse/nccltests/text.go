package nccltests

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/commlab/commlab/parse"
	"github.com/commlab/commlab/parse/internal/launcher"
)

// maxLine bounds one input line; nccl-tests lines are short, NCCL debug
// lines rarely exceed a few KB.
const maxLine = 1 << 20

// Parse reads nccl-tests output, text or JSON (detected from the first
// non-blank byte). On an error it still returns what parsed.
func Parse(r io.Reader) (*Result, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return &Result{}, fmt.Errorf("nccltests: read: %w", err)
	}
	if trimmed := bytes.TrimLeft(data, " \t\r\n\ufeff"); len(trimmed) > 0 && trimmed[0] == '{' {
		return ParseJSON(bytes.NewReader(data))
	}
	return ParseText(bytes.NewReader(data))
}

var (
	// Launcher prefixes: mpirun --tag-output, --timestamp-output, srun -l,
	// and the "[0] " some wrappers add.
	reLauncherPrefix = regexp.MustCompile(`^(?:\[\d+(?:,\d+)*\]<std(?:out|err)>:|[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \d{4}<std(?:out|err)>:|\[\d+\] ?|\d+: )`)
	// A launcher tag left at the end of a row fragment when a debug line
	// starts in the middle of the line: "...  0[0] host:1:2 [0] NCCL INFO".
	reTrailingTag = regexp.MustCompile(`(?:\[\d+(?:,\d+)*\](?:<std(?:out|err)>:)?\s*)$`)
	// NCCL debug line start: "host:pid:tid [dev] NCCL INFO", optionally
	// with "file.cc:123 " before NCCL (WARN lines).
	reDebug = regexp.MustCompile(`\S+:\d+:\d+ \[\d+\] (?:\S+:\d+ )?NCCL (?:INFO|WARN|TRACE|ABORT)`)
	// "NCCL version 2.28.3+cuda12.9", "RCCL version 2.18.3+hip6.0 HEAD:x",
	// "RCCL version : 2.21.5-HEAD:9a0e6a1" (RCCL from ROCm 6.2).
	reNCCLVersion = regexp.MustCompile(`\b([NR]CCL) version(?: :)? (\S+)`)
	reRCCLBanner  = regexp.MustCompile(`^(?:HIP version|ROCm version|Hostname|Librccl path)\s*:`)
	reTestsVer    = regexp.MustCompile(`^#\s*([nr]ccl-tests) version (\S+)(?:\s+\([^)]*\))?(?:\s+[nr]ccl-headers=(\d+))?(?:\s+[nr]ccl-library=(\d+))?`)
	reStarting    = regexp.MustCompile(`^#\s*Collective test starting:\s*(\S+)`)
	reConcluded   = regexp.MustCompile(`^#\s*Collective test concluded:\s*(\S+)`)
	// A device line; the host may be empty ("on        device  0" where
	// gethostname gave nothing).
	reDevice    = regexp.MustCompile(`^#\s+Rank\s+(\d+)\s+(?:Group\s+(\d+)\s+)?Pid\s+(\d+)\s+on\s+(?:(\S+)\s+)??device\s+(\d+)\s+\[([^\]]*)\]\s*(.*?)\s*$`)
	reOOB       = regexp.MustCompile(`^#\s*Out of bounds values\s*:\s*(\d+)\s*(\S*)`)
	reAvgBW     = regexp.MustCompile(`^#\s*Avg bus bandwidth\s*:\s*(\S+)\s*(\S*)`)
	reErrorLine = regexp.MustCompile(`^#\s*error:\s*(.*)$`)
	reFailure   = regexp.MustCompile(`\bTest (?:NCCL |CUDA )?failure\b`)
	reCommand   = regexp.MustCompile(`(?:^|[\s/])(\w+_perf(?:_mpi)?)(?:\s|$)`)
	reParam     = map[string]*regexp.Regexp{
		// rccl-tests print "nThreads: 1 nGpus: 1 nRanks: 1 ...
		// warmupIters: 5 iters: 20".
		"nThread":    regexp.MustCompile(`nThreads?:?\s+(\d+)`),
		"nGpus":      regexp.MustCompile(`nGpus:?\s+(\d+)`),
		"minBytes":   regexp.MustCompile(`minBytes:?\s+(\d+)`),
		"maxBytes":   regexp.MustCompile(`maxBytes:?\s+(\d+)`),
		"step":       regexp.MustCompile(`step:\s*(\d+)\((factor|bytes)\)`),
		"warmup":     regexp.MustCompile(`warmup ?[Ii]ters:\s*(\d+)`),
		"iters":      regexp.MustCompile(`\d\s+iters:\s*(\d+)`),
		"agg":        regexp.MustCompile(`agg iters:\s*(\d+)`),
		"validation": regexp.MustCompile(`validation:\s*(\d+)`),
		"graph":      regexp.MustCompile(`graph:\s*(\d+)`),
	}
)

// textParser holds the state of one pass over a text input.
type textParser struct {
	strip   *launcher.Stripper
	res     *Result
	run     *Run // current run, nil before the first header or row
	errs    []error
	pending []string // tokens of a row not yet complete
	pendAt  int      // line the pending row started on
	lineNo  int
	// cmdProgram is a *_perf binary named on a command line seen before
	// the run it launched.
	cmdProgram string
	// reasonFor is the index in the current run's Failures of a failure
	// line whose reason may come on the next line; -1 when none.
	reasonFor int
}

// ParseText reads the text output of an nccl-tests (or rccl-tests)
// binary.
func ParseText(r io.Reader) (*Result, error) {
	p := &textParser{res: &Result{Format: "text"}, reasonFor: -1}
	data, err := io.ReadAll(r)
	if err != nil {
		p.errs = append(p.errs, &parse.Error{Format: "nccltests", Line: 1, Err: fmt.Errorf("%w: read: %w", ErrMalformed, err)})
	}
	lines := strings.Split(string(data), "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	p.strip = launcher.Detect(lines)
	for _, l := range lines {
		p.lineNo++
		if len(l) > maxLine {
			p.errs = append(p.errs, &parse.Error{Format: "nccltests", Line: p.lineNo, Err: fmt.Errorf("%w: line longer than %d bytes skipped", ErrMalformed, maxLine)})
			continue
		}
		p.line(l)
	}
	p.finish()
	if hosts := p.strip.Hosts(); len(hosts) > 0 {
		for i := range p.res.Runs {
			p.res.Runs[i].Notes = append(p.res.Runs[i].Notes, "lines carry host labels (pdsh): "+strings.Join(hosts, ", ")+"; read without them")
		}
	}
	return p.res, errors.Join(p.errs...)
}

func (p *textParser) line(raw string) {
	text := strings.TrimRight(raw, "\r")
	text, _ = p.strip.Strip(text)
	text = stripLauncherPrefix(text)
	if loc := reDebug.FindStringIndex(text); loc != nil {
		start := p.splitGluedNumber(text, loc[0])
		p.debugLine(text[start:])
		text = reTrailingTag.ReplaceAllString(text[:start], "")
		if strings.TrimSpace(text) == "" {
			return
		}
		p.fragment(text, true)
		return
	}
	trimmed := strings.TrimSpace(text)
	switch {
	case trimmed == "":
		return
	case strings.HasPrefix(trimmed, "#"):
		p.headerLine(trimmed)
	case headerWithoutHash(trimmed):
		// A header line that lost its "#" (a paste rendered as markdown,
		// a filter that dropped comments).
		p.headerLine("# " + trimmed)
	case strings.HasPrefix(trimmed, "NCCL version"), strings.HasPrefix(trimmed, "RCCL version"):
		p.res.DebugLines++
		if m := reNCCLVersion.FindStringSubmatch(trimmed); m != nil {
			run := p.current()
			run.NCCLVersion = m[2]
			if m[1] == "RCCL" {
				run.Library = "RCCL"
			}
		}
	case strings.HasPrefix(trimmed, "rccl-tests: Version "):
		// rccl-tests of 2024-2025 print "rccl-tests: Version develop:83d38d9"
		// without a "#", after the parameter line.
		run := p.current()
		run.TestsVersion = strings.TrimSpace(strings.TrimPrefix(trimmed, "rccl-tests: Version "))
		run.Library = "RCCL"
	case reRCCLBanner.MatchString(trimmed):
		// RCCL's version block: "HIP version  : ...", "Librccl path : ...".
		p.res.DebugLines++
	default:
		p.fragment(text, false)
	}
}

// reHashless are the header and footer lines nccl-tests prints after a
// "#", as they read when the "#" was lost.
var reHashless = regexp.MustCompile(`^(?:[nr]ccl-tests version \S|nThreads?:?\s+\d+\s+nGpus:?\s|Rank\s+\d+\s+(?:Group\s+\d+\s+)?Pid\s+\d+\s+on\s|size\s+count\s+type\s|\(B\)\s+\(elements\)|out-of-place\s+in-place|Out of bounds values\s*:|Avg bus bandwidth\s*:|Using devices\s*$|Collective test (?:starting|concluded):)`)

func headerWithoutHash(s string) bool {
	switch s[0] {
	case 'n', 'r', 'R', 's', '(', 'o', 'O', 'A', 'U', 'C':
		return reHashless.MatchString(s)
	}
	return false
}

var reGluedNumber = regexp.MustCompile(`^(?:-?\d+(?:\.\d+)?(?:e[+-]\d+)?|N/A)`)

// splitGluedNumber decides where a debug line that interrupts a row really
// starts. NCCL prints "host:pid:tid" right after the row's last printed
// field, so "   -1node7:12:34 [0] NCCL INFO" could be root -1 and host
// "node7" or a field ending before host "-1node7". nccl-tests prints a row
// in pieces (the five leading columns, then four per half), so the split
// that ends the fragment on a piece boundary wins.
func (p *textParser) splitGluedNumber(text string, at int) int {
	m := reGluedNumber.FindStringIndex(text[at:])
	if m == nil || m[1] == 0 || at+m[1] >= len(text) || text[at+m[1]] == ' ' {
		return at
	}
	before := len(strings.Fields(text[:at]))
	if at > 0 && text[at-1] != ' ' && before > 0 {
		return at // glued to a longer token, not a column boundary
	}
	lead := 5
	if p.run != nil {
		for i, c := range p.run.Columns {
			if c == "time" || c == "cputime" {
				lead = i
				break
			}
		}
	}
	onBoundary := func(n int) bool {
		n += len(p.pending)
		return n == lead || (n > lead && (n-lead)%4 == 0)
	}
	if onBoundary(before+1) && !onBoundary(before) {
		return at + m[1]
	}
	return at
}

func stripLauncherPrefix(s string) string {
	for i := 0; i < 3; i++ { // prefixes can stack: "[1,0]<stdout>:[0] "
		loc := reLauncherPrefix.FindStringIndex(s)
		if loc == nil || loc[1] == 0 {
			return s
		}
		s = s[loc[1]:]
	}
	return s
}

func (p *textParser) debugLine(s string) {
	p.res.DebugLines++
	if m := reNCCLVersion.FindStringSubmatch(s); m != nil && p.run != nil {
		p.run.NCCLVersion = m[2]
		if m[1] == "RCCL" {
			p.run.Library = "RCCL"
		}
	}
	if strings.Contains(s, " NCCL WARN ") && p.run != nil {
		if i := strings.Index(s, "NCCL WARN "); i >= 0 {
			p.run.Warnings = append(p.run.Warnings, strings.TrimSpace(s[i+len("NCCL WARN "):]))
		}
	}
}

// current returns the run being filled, starting one if needed.
func (p *textParser) current() *Run {
	if p.run == nil {
		p.startRun()
	}
	return p.run
}

func (p *textParser) startRun() {
	p.flushPending()
	p.res.Runs = append(p.res.Runs, Run{StartLine: p.lineNo})
	p.run = &p.res.Runs[len(p.res.Runs)-1]
	if p.cmdProgram != "" {
		p.run.setProgram(p.cmdProgram)
		p.cmdProgram = ""
	}
}

// runForHeader returns the run a header line belongs to: a header after
// rows or a footer begins the next run.
func (p *textParser) runForHeader() *Run {
	if p.run == nil || len(p.run.Rows) > 0 || p.run.HasFooter || len(p.pending) > 0 {
		p.startRun()
	}
	return p.run
}

func (p *textParser) headerLine(s string) {
	if m := reTestsVer.FindStringSubmatch(s); m != nil {
		run := p.runForHeader()
		if run.TestsVersion != "" || run.Params.Raw != "" {
			run = p.startNewRun()
		}
		run.TestsVersion = m[2]
		run.NCCLHeaders = parse.Int(m[3])
		run.NCCLLibrary = parse.Int(m[4])
		if m[1] == "rccl-tests" {
			run.Library = "RCCL"
		}
		return
	}
	if m := reStarting.FindStringSubmatch(s); m != nil {
		p.runForHeader().setProgram(m[1])
		return
	}
	if strings.Contains(s, "nThread") && strings.Contains(s, "nGpus") {
		run := p.runForHeader()
		if run.Params.Raw != "" { // a second header: next run (or a duplicate print by another process)
			run = p.startNewRun()
		}
		run.Params = parseParams(s)
		return
	}
	if m := reDevice.FindStringSubmatch(s); m != nil {
		run := p.runForHeader()
		run.Devices = append(run.Devices, Device{
			Rank: parse.Int(m[1]), Group: parse.Int(m[2]), PID: parse.Int(m[3]), Host: m[4],
			CUDADev: parse.Int(m[5]), BusID: m[6], Name: m[7],
		})
		return
	}
	if cols := parseColumns(s); cols != nil {
		run := p.runForHeader()
		if len(run.Columns) == 0 {
			run.Columns = cols
			for _, c := range cols {
				if c == "#wrong" || c == "error" {
					run.WrongColumn = c
					break
				}
			}
		}
		return
	}
	if m := reOOB.FindStringSubmatch(s); m != nil {
		p.flushPending()
		run := p.current()
		run.HasFooter = true
		run.OutOfBounds = parse.Int(m[1])
		run.OutOfBoundsOK = m[2] == "OK"
		return
	}
	if m := reAvgBW.FindStringSubmatch(s); m != nil {
		p.flushPending()
		run := p.current()
		run.HasFooter = true
		v, err := strconv.ParseFloat(m[1], 64)
		if err != nil {
			p.errs = append(p.errs, &parse.Error{Format: "nccltests", Line: p.lineNo, Err: fmt.Errorf("%w: avg bus bandwidth %q", ErrMalformed, m[1])})
		}
		run.AvgBusBW = v
		run.AvgBusBWVerdict = m[2]
		return
	}
	if m := reConcluded.FindStringSubmatch(s); m != nil {
		if p.run != nil && p.run.Program == "" {
			p.run.setProgram(m[1])
		}
		return
	}
	if m := reErrorLine.FindStringSubmatch(s); m != nil && p.run != nil {
		p.run.Errors = append(p.run.Errors, m[1])
		return
	}
	// "#", "# Using devices", the units line and other comments.
}

// startNewRun begins a run even when the current one has no rows yet (a
// second version or parameter line).
func (p *textParser) startNewRun() *Run {
	p.startRun()
	return p.run
}

func parseParams(s string) Params {
	pr := Params{Raw: strings.TrimSpace(strings.TrimPrefix(s, "#"))}
	get := func(key string) string {
		if m := reParam[key].FindStringSubmatch(s); m != nil {
			return m[1]
		}
		return ""
	}
	pr.NThread = parse.Int(get("nThread"))
	pr.NGpus = parse.Int(get("nGpus"))
	pr.MinBytes = parse.Int64(get("minBytes"))
	pr.MaxBytes = parse.Int64(get("maxBytes"))
	if m := reParam["step"].FindStringSubmatch(s); m != nil {
		if m[2] == "factor" {
			pr.StepFactor = parse.Int64(m[1])
		} else {
			pr.StepBytes = parse.Int64(m[1])
		}
	}
	pr.WarmupIters = parse.Int(get("warmup"))
	pr.Iters = parse.Int(get("iters"))
	pr.AggIters = parse.Int(get("agg"))
	pr.Validation = parse.Int(get("validation"))
	pr.Graph = parse.Int(get("graph"))
	return pr
}

// parseColumns recognises the table header line and returns its column
// names, or nil.
func parseColumns(s string) []string {
	fields := strings.Fields(strings.TrimPrefix(s, "#"))
	if len(fields) < 6 || fields[0] != "size" || fields[1] != "count" {
		return nil
	}
	for _, f := range fields {
		if f == "time" || f == "cputime" {
			return fields
		}
	}
	return nil
}

// fragment handles a non-comment line or the part of a line before an
// interleaved debug line. Tokens join a pending row until it is complete.
func (p *textParser) fragment(text string, cut bool) {
	tokens := strings.Fields(text)
	if len(tokens) == 0 {
		return
	}
	if len(p.pending) == 0 {
		if !looksLikeRowStart(tokens) {
			p.ignored(text)
			return
		}
		p.current() // a row before any header starts a run first

		p.pendAt = p.lineNo
		p.pending = append(p.pending, tokens...)
	} else {
		if looksLikeRowStart(tokens) && len(p.pending) >= 3 {
			// The pending row never completed; a new row begins here.
			p.errs = append(p.errs, &parse.Error{Format: "nccltests", Line: p.pendAt, Err: fmt.Errorf("%w: row has %d fields, a new row starts on line %d", ErrMalformed, len(p.pending), p.lineNo)})
			p.pending = nil
			p.pendAt = p.lineNo
			p.pending = append(p.pending, tokens...)
		} else if allNumeric(tokens) {
			p.pending = append(p.pending, tokens...)
		} else {
			p.ignored(text)
			return
		}
	}
	run := p.current()
	want := expectedFields(run, p.pending, cut)
	if want > 0 && len(p.pending) >= want {
		p.completeRow(run, want)
	}
}

func (p *textParser) ignored(text string) {
	p.res.IgnoredLines++
	reason := p.reasonFor
	p.reasonFor = -1
	line := strings.TrimSpace(text)
	if reFailure.MatchString(line) {
		run := p.current()
		run.Failures = append(run.Failures, line)
		p.reasonFor = len(run.Failures) - 1
		return
	}
	// nccl-tests prints the reason of some failures on the line after
	// ("Invalid number of GPUs: 2 requested but only 1 were found.");
	// launcher banners ("-----") are not reasons.
	if reason >= 0 && p.run != nil && reason < len(p.run.Failures) && !strings.HasPrefix(line, "-") {
		p.run.Failures[reason] += ": " + line
		return
	}
	if m := reCommand.FindStringSubmatch(text); m != nil {
		if p.run != nil && p.run.Program == "" && len(p.run.Rows) == 0 {
			p.run.setProgram(m[1])
			return
		}
		p.cmdProgram = m[1]
	}
}

// looksLikeRowStart: size and count are integers, the type is a word.
func looksLikeRowStart(t []string) bool {
	if len(t) < 3 {
		return false
	}
	if _, err := strconv.ParseInt(t[0], 10, 64); err != nil {
		return false
	}
	if _, err := strconv.ParseInt(t[1], 10, 64); err != nil {
		return false
	}
	_, err := strconv.ParseFloat(t[2], 64)
	return err != nil && t[2] != "N/A"
}

func allNumeric(t []string) bool {
	for _, s := range t {
		if !isNumber(s) {
			return false
		}
	}
	return true
}

// expectedFields is how many tokens a complete row of this run has, or 0
// when it cannot be told yet (no header and the line was cut short).
func expectedFields(run *Run, tokens []string, cut bool) int {
	if cols := rowColumns(run, tokens, cut); cols != nil {
		n := len(cols)
		for _, c := range cols {
			if c == "timestamp" {
				n++ // "2025-01-02 15:04:05" is two tokens
			}
		}
		return n
	}
	return 0
}

// rowColumns names the columns of a row: the header's, less the redop
// column where the row left it blank (hypercube, and all_gather from
// nccl-tests 2.13 print an empty operation name), or, without a header,
// what the tokens' kinds say. nil when a row without a header is not
// complete enough to tell.
func rowColumns(run *Run, tokens []string, cut bool) []string {
	if len(run.Columns) > 0 {
		for i, c := range run.Columns {
			// Every operation name is a word: a number where the redop
			// belongs means the row left the column blank, with a root
			// after it ("-1") or, before 2.13, none (alltoall printed "").
			if c == "redop" && len(tokens) > i && isNumber(tokens[i]) {
				return append(run.Columns[:i:i], run.Columns[i+1:]...)
			}
		}
		return run.Columns
	}
	// Without a header: size count type, then a redop (a word), a root
	// (an integer), both (13 fields, the layout since 2.13) or neither
	// (all_gather before 2.13: 11), and the two halves of four.
	if len(tokens) < 4 {
		return nil
	}
	lead := []string{"size", "count", "type"}
	wrong := "error"
	n := len(tokens)
	switch {
	case !isNumber(tokens[3]):
		lead = append(lead, "redop")
		switch {
		case n >= 13:
			lead, wrong = append(lead, "root"), "#wrong"
		case n == 12 && !cut:
		default:
			return nil
		}
	case isInt(tokens[3]) && n >= 12:
		lead, wrong = append(lead, "root"), "#wrong"
	case isInt(tokens[3]) && (n < 11 || cut):
		return nil // a root or an integral time: the count will tell
	case n < 11:
		return nil
	}
	cols := append([]string(nil), lead...)
	for range 2 {
		cols = append(cols, "time", "algbw", "busbw", wrong)
	}
	return cols
}

func isInt(s string) bool {
	_, err := strconv.Atoi(s)
	return err == nil
}

func isNumber(s string) bool {
	if s == "N/A" {
		return true
	}
	_, _, err := parseNumber(s)
	return err == nil
}

func (p *textParser) completeRow(run *Run, want int) {
	tokens := p.pending[:want]
	extra := p.pending[want:]
	p.pending = nil
	cols := rowColumns(run, tokens, false)
	row, err := buildRow(cols, tokens)
	row.Line = p.pendAt
	if err != nil {
		p.errs = append(p.errs, &parse.Error{Format: "nccltests", Line: p.pendAt, Err: err})
		return
	}
	run.Rows = append(run.Rows, row)
	if len(extra) > 0 {
		p.errs = append(p.errs, &parse.Error{Format: "nccltests", Line: p.lineNo, Err: fmt.Errorf("%w: %d extra fields after a complete row", ErrMalformed, len(extra))})
	}
}

// buildRow maps tokens to columns by name; the second time/algbw/busbw/
// #wrong group is the in-place half.
func buildRow(cols, tokens []string) (Row, error) {
	row := Row{Root: -1}
	half := &row.OutOfPlace
	seenTime := false
	ti := 0
	for _, c := range cols {
		if ti >= len(tokens) {
			return row, fmt.Errorf("%w: row has %d fields, header has %d columns", ErrMalformed, len(tokens), len(cols))
		}
		tok := tokens[ti]
		ti++
		var err error
		switch c {
		case "size":
			row.SizeBytes, err = strconv.ParseInt(tok, 10, 64)
		case "count":
			row.Count, err = strconv.ParseInt(tok, 10, 64)
		case "type":
			row.Type = tok
		case "redop":
			row.RedOp = tok
		case "root":
			row.Root, err = strconv.Atoi(tok)
		case "time", "cputime":
			if seenTime {
				half = &row.InPlace
			}
			seenTime = true
			half.Present = true
			half.CPUTime = c == "cputime"
			half.TimeUs, err = half.number(tok)
		case "algbw":
			half.AlgBW, err = half.number(tok)
		case "busbw":
			half.BusBW, err = half.number(tok)
		case "#wrong", "error":
			if tok == "N/A" {
				half.WrongNA = true
			} else {
				half.Wrong, err = half.number(tok)
			}
		case "i_min":
			half.IterMinUs, err = half.number(tok)
		case "i_max":
			half.IterMaxUs, err = half.number(tok)
		case "i_p99":
			half.IterP99Us, err = half.number(tok)
		case "i_cv%":
			half.IterCVPct, err = half.number(tok)
		case "timestamp":
			if ti < len(tokens) {
				row.Timestamp = tok + " " + tokens[ti]
				ti++
			}
		}
		if err != nil {
			return row, fmt.Errorf("%w: column %s: %q is not a number", ErrMalformed, c, tok)
		}
	}
	return row, nil
}

// parseNumber reads the numbers nccl-tests prints, including the shrunk
// forms "1e+06" and "3.2e+05". "inf" and "nan" (a zero time) read as 0
// with nan set: JSON has no infinities.
func parseNumber(s string) (v float64, nan bool, err error) {
	switch strings.ToLower(strings.TrimLeft(s, "+-")) {
	case "nan", "inf", "infinity":
		return 0, true, nil
	}
	v, err = strconv.ParseFloat(s, 64)
	if err == nil && (math.IsInf(v, 0) || math.IsNaN(v)) {
		return 0, true, nil
	}
	return v, false, err
}

// number reads a value of this half, marking it NotANumber for inf/nan.
func (m *Measurement) number(tok string) (float64, error) {
	v, nan, err := parseNumber(tok)
	m.NotANumber = m.NotANumber || nan
	return v, err
}

func (p *textParser) flushPending() {
	if len(p.pending) == 0 {
		return
	}
	run := p.run
	if run != nil && len(run.Columns) == 0 {
		if want := expectedFields(run, p.pending, false); want > 0 && want == len(p.pending) {
			p.completeRow(run, want)
			return
		}
	}
	p.errs = append(p.errs, &parse.Error{Format: "nccltests", Line: p.pendAt, Err: fmt.Errorf("%w: row cut short after %d fields", ErrTruncated, len(p.pending))})
	p.pending = nil
}

func (p *textParser) finish() {
	p.flushPending()
	for i := range p.res.Runs {
		p.res.Runs[i].infer()
	}
	if len(p.res.Runs) == 0 || !anyContent(p.res.Runs) {
		p.errs = append(p.errs, &parse.Error{Format: "nccltests", Msg: "no nccl-tests output found", Err: parse.ErrFormat})
		return
	}
	for _, r := range p.res.Runs {
		if len(r.Failures) > 0 {
			p.errs = append(p.errs, fmt.Errorf("%w: %s", ErrTestFailed, strings.Join(r.Failures, "; ")))
		}
	}
	last := &p.res.Runs[len(p.res.Runs)-1]
	switch {
	case len(last.Rows) > 0 && !last.HasFooter:
		p.errs = append(p.errs, &parse.Error{Format: "nccltests", Line: p.lineNo, Err: fmt.Errorf("%w: output ends after row %d without the \"# Avg bus bandwidth\" footer", ErrTruncated, len(last.Rows))})
	case len(last.Rows) == 0 && !last.HasFooter && last.Params.Raw != "":
		p.errs = append(p.errs, &parse.Error{Format: "nccltests", Line: p.lineNo, Err: fmt.Errorf("%w: output ends after the header, before the first row", ErrTruncated)})
	}
}

func anyContent(runs []Run) bool {
	for _, r := range runs {
		if len(r.Rows) > 0 || r.Params.Raw != "" || r.TestsVersion != "" || len(r.Devices) > 0 {
			return true
		}
	}
	return false
}
