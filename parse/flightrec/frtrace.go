package flightrec

import (
	"bufio"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
)

// TraceError is one collective PyTorch's analyzer (python -m
// torch.distributed.flight_recorder.fr_trace DIR, torch 2.5 and later)
// reported with errors, as its text report prints it: the collective as
// the first rank's entry describes it, and each culprit rank with what in
// its entry did not match.
type TraceError struct {
	// Seq is the collective's sequence number ("Collective sequence
	// number: N has errors"; "Collective N at entry M errors" in older
	// releases); RecordID the entry's internal record id (M there).
	Seq      int64 `json:"seq"`
	RecordID int64 `json:"record_id"`
	// Group is "pg_name:pg_desc" ("0:default_pg").
	Group         string `json:"group,omitempty"`
	Collective    string `json:"collective,omitempty"`
	InputSizes    string `json:"input_sizes,omitempty"`
	OutputSizes   string `json:"output_sizes,omitempty"`
	WorldSize     int    `json:"world_size,omitempty"`
	ExpectedRanks []int  `json:"expected_ranks,omitempty"`
	State         string `json:"state,omitempty"`
	// MissingRanks are the ranks with no entry for the collective ("Not
	// all ranks joining collective": their "missing ranks").
	MissingRanks []int     `json:"missing_ranks,omitempty"`
	Culprits     []Culprit `json:"culprits,omitempty"`
	// Stack is the collective's Python stack, innermost first, one
	// "func at file:line" a frame.
	Stack []string `json:"stack,omitempty"`
}

// Culprit is one rank fr_trace blamed: its error type
// (SIZE_OR_SYNTAX_MISMATCH, COLLECTIVE_STATE_MISMATCH, ...) and what it
// found there against what the first rank's entry led it to expect.
type Culprit struct {
	Rank   int    `json:"rank"`
	Type   string `json:"type"`
	Detail string `json:"detail"`
}

var (
	reTraceHead    = regexp.MustCompile(`^Collective sequence number: (\d+) has errors$`)
	reTraceHeadOld = regexp.MustCompile(`^Collective (\d+) at entry (\d+) errors$`)
	// reTraceMissing heads a collective some ranks never recorded (torch 2.11).
	reTraceMissing = regexp.MustCompile(`^Not all ranks joining collective, sequence number: (\d+)$`)
	reCulprit      = regexp.MustCompile(`Culprit rank (\d+); Error type: ([A-Z_]+), `)
)

// ParseTraceReport reads fr_trace's text report and returns each
// collective it reported with errors, in the report's order. Lines outside
// such a block, and fields it does not know, are skipped; a report with no
// block is an error. A block cut short keeps the fields it has.
func ParseTraceReport(r io.Reader) ([]TraceError, error) {
	var out []TraceError
	var cur *TraceError
	inStack := false
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), " \r")
		if m := reTraceHead.FindStringSubmatch(line); m != nil {
			seq, _ := strconv.ParseInt(m[1], 10, 64)
			out = append(out, TraceError{Seq: seq, RecordID: -1})
			cur, inStack = &out[len(out)-1], false
			continue
		}
		if m := reTraceMissing.FindStringSubmatch(line); m != nil {
			seq, _ := strconv.ParseInt(m[1], 10, 64)
			out = append(out, TraceError{Seq: seq, RecordID: -1})
			cur, inStack = &out[len(out)-1], false
			continue
		}
		if m := reTraceHeadOld.FindStringSubmatch(line); m != nil {
			seq, _ := strconv.ParseInt(m[1], 10, 64)
			rec, _ := strconv.ParseInt(m[2], 10, 64)
			out = append(out, TraceError{Seq: seq, RecordID: rec})
			cur, inStack = &out[len(out)-1], false
			continue
		}
		if cur == nil {
			continue
		}
		key, val, ok := strings.Cut(line, ": ")
		if !ok && strings.HasSuffix(line, ":") {
			key, val, ok = strings.TrimSuffix(line, ":"), "", true
		}
		if inStack && (!ok || !knownTraceField[key]) {
			if f := strings.TrimSpace(line); f != "" {
				cur.Stack = append(cur.Stack, f)
			}
			continue
		}
		if !ok {
			continue
		}
		switch key {
		case "internal record id":
			cur.RecordID, _ = strconv.ParseInt(val, 10, 64)
		case "group info":
			cur.Group = val
		case "collective":
			cur.Collective = val
		case "input sizes":
			cur.InputSizes = val
		case "output sizes":
			cur.OutputSizes = val
		case "world size":
			cur.WorldSize, _ = strconv.Atoi(val)
		case "expected ranks":
			cur.ExpectedRanks = rankSet(val)
		case "missing ranks":
			cur.MissingRanks = rankSet(val)
		case "collective state":
			cur.State = val
		case "error msg":
			cur.Culprits = culpritsOf(val)
		case "collective stack trace":
			inStack = true
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("flightrec: fr_trace report: %w", err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("flightrec: fr_trace report: no collective with errors in it")
	}
	return out, nil
}

var knownTraceField = map[string]bool{"internal record id": true, "group info": true, "collective": true,
	"input sizes": true, "output sizes": true, "world size": true, "expected ranks": true,
	"collective state": true, "error msg": true, "collective stack trace": true, "missing ranks": true}

// rankSet reads a Python set of ranks, "{0, 1}".
func rankSet(val string) []int {
	var out []int
	for _, f := range strings.Split(strings.Trim(val, "{}"), ",") {
		if n, err := strconv.Atoi(strings.TrimSpace(f)); err == nil {
			out = append(out, n)
		}
	}
	return out
}

// culpritsOf splits fr_trace's error message, "Culprit rank R; Error
// type: T, DETAIL" once per rank, joined by ", ".
func culpritsOf(msg string) []Culprit {
	idx := reCulprit.FindAllStringSubmatchIndex(msg, -1)
	var out []Culprit
	for i, m := range idx {
		end := len(msg)
		if i+1 < len(idx) {
			end = idx[i+1][0]
		}
		rank, _ := strconv.Atoi(msg[m[2]:m[3]])
		out = append(out, Culprit{Rank: rank, Type: msg[m[4]:m[5]], Detail: strings.TrimSuffix(strings.TrimSpace(msg[m[1]:end]), ",")})
	}
	return out
}

// ReadTraceErrors says in one line per collective what the report blames: the
// collective, its state on the first rank, and each culprit.
func ReadTraceErrors(errs []TraceError) string {
	var b strings.Builder
	for _, e := range errs {
		fmt.Fprintf(&b, "%s #%d (group %s, %d ranks, input %s): first rank's entry %s", e.Collective, e.Seq, e.Group, e.WorldSize, e.InputSizes, stateOrUnread(e.State))
		if len(e.MissingRanks) > 0 {
			fmt.Fprintf(&b, "; %s recorded no entry for it", RanksPhrase(e.MissingRanks))
		}
		if len(e.Culprits) == 0 && len(e.MissingRanks) == 0 {
			b.WriteString("; no culprit in what was read")
		}
		for _, c := range e.Culprits {
			fmt.Fprintf(&b, "; rank %d: %s (%s)", c.Rank, c.Type, c.Detail)
		}
		b.WriteString("\n")
	}
	return b.String()
}

func stateOrUnread(s string) string {
	if s == "" {
		return "not in what was read"
	}
	return s
}
