package flightrec

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/commlab/commlab/internal/golden"
	"github.com/commlab/commlab/parse"
)

// scenarios are the synthetic dump sets gen_fixtures.py writes.
var scenarios = []string{"missing_rank", "size_mismatch_json", "order_mismatch", "unpaired_send", "healthy_json", "h200",
	"gloo_count", "gloo_order", "gloo_unpaired", "gloo_two_comms"}

func loadScenario(t testing.TB, name string) []*Dump {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("testdata", name, "*rank*"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no dumps for %s: %v", name, err)
	}
	dumps, err := LoadDumps(paths)
	if err != nil {
		t.Fatalf("LoadDumps(%s): %v", name, err)
	}
	return dumps
}

func checkGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	golden.Check(t, path, got)
}

func TestAnalyzeGolden(t *testing.T) {
	for _, name := range scenarios {
		t.Run(name, func(t *testing.T) {
			a := Analyze(loadScenario(t, name))
			checkGolden(t, filepath.Join("testdata", name+".txt.golden"), []byte(a.Text()))
			js, err := json.MarshalIndent(a, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			checkGolden(t, filepath.Join("testdata", name+".json.golden"), append(js, '\n'))
		})
	}
}

func TestAnalyzeVerdicts(t *testing.T) {
	cases := []struct {
		scenario string
		kinds    []string
		culprits []int
		want     []string // substrings of the first verdict line
	}{
		{"missing_rank", []string{FindingMissing}, []int{3},
			[]string{"rank 3 never called all_reduce #3001 (input 4096x1024 BFloat16) of pg 0 (default_pg): its last enqueued collective is #3000", "ranks 0-2,4-7 are waiting in all_reduce #3001"}},
		{"size_mismatch_json", []string{FindingSizeMismatch}, []int{1},
			[]string{"rank 1 calls all_reduce #5 of pg 0 (default_pg) with sizes 2048->2048", "ranks 0,2,3 use 1024->1024"}},
		{"order_mismatch", []string{FindingOpMismatch}, []int{2},
			[]string{"rank 2 runs all_gather as collective #7", "ranks 0,1,3 run all_reduce", "different order"}},
		{"unpaired_send", []string{FindingUnpairedP2P}, []int{0},
			[]string{"rank 0 posted 3 send(s) to rank 1", "rank 1 posted 2 receive(s)", "send p2p #3 is unpaired (started)"}},
		{"healthy_json", nil, nil, []string{"all 2 dumped ranks completed every collective up to #3"}},
		// Real gloo dumps (torch 2.11 on the H200 machine, CPU ranks): no
		// start or end events, the default group unnamed in pg_config.
		{"gloo_count", []string{FindingMissing}, []int{1},
			[]string{"rank 1 never called all_reduce #5 (input 1024 Float) of pg 0 (default_pg): its last enqueued collective is #4", "rank 0 called all_reduce #5 (gloo records no completion)"}},
		{"gloo_order", []string{FindingOpMismatch}, []int{1},
			[]string{"rank 1 runs all_gather as collective #2 of pg 0 (default_pg) while rank 0 runs all_reduce"}},
		{"gloo_unpaired", []string{FindingMissing}, []int{0},
			[]string{"rank 0 never called all_reduce #2"}},
		{"gloo_two_comms", []string{FindingCrossGroup, FindingMissing, FindingMissing}, []int{0, 1},
			[]string{"rank 0 and rank 1 wait on each other across process groups", "pg 1 (pg_a), which rank 1 never called", "pg 2 (pg_b), which rank 0 never called"}},
	}
	for _, c := range cases {
		t.Run(c.scenario, func(t *testing.T) {
			a := Analyze(loadScenario(t, c.scenario))
			var kinds []string
			for _, f := range a.Findings {
				kinds = append(kinds, f.Kind)
			}
			if !reflect.DeepEqual(kinds, c.kinds) {
				t.Errorf("finding kinds = %v, want %v", kinds, c.kinds)
			}
			if len(c.kinds) > 0 && !reflect.DeepEqual(a.Findings[0].Ranks, c.culprits) {
				t.Errorf("culprits = %v, want %v", a.Findings[0].Ranks, c.culprits)
			}
			if len(a.Verdict) == 0 {
				t.Fatal("no verdict")
			}
			for _, w := range c.want {
				if !strings.Contains(a.Verdict[0], w) {
					t.Errorf("verdict %q lacks %q", a.Verdict[0], w)
				}
			}
		})
	}
}

// A CPU backend's dump: every entry "scheduled", pg_status counting the
// timed-out collective as completed, the default group named "" in
// pg_config. No "not started" verdict, no second group.
func TestAnalyzeGlooDumps(t *testing.T) {
	a := Analyze(loadScenario(t, "gloo_count"))
	if len(a.Groups) != 1 || a.Groups[0].PG != "0" || a.Groups[0].Backend != "gloo" || !a.Groups[0].NoEvents {
		t.Fatalf("groups = %+v", a.Groups)
	}
	if !reflect.DeepEqual(a.Groups[0].Members, []int{0, 1}) {
		t.Errorf("members %v: the unnamed default group's ranks belong to pg 0", a.Groups[0].Members)
	}
	for _, f := range a.Findings {
		if f.Kind == FindingNotStarted {
			t.Errorf("a gloo dump got a not-started finding: %+v", f)
		}
	}
	if g := a.Groups[0]; g.StuckSeq != 5 || g.States[0].LastCompleted != -1 {
		t.Errorf("stuck #%d, rank 0 %+v", g.StuckSeq, g.States[0])
	}
}

func TestAnalyzeWithoutADump(t *testing.T) {
	dumps := loadScenario(t, "missing_rank")
	var kept []*Dump
	for _, d := range dumps {
		if d.Rank != 3 {
			kept = append(kept, d)
		}
	}
	a := Analyze(kept)
	// The rank without a dump comes first: the others may only wait for it.
	want := "rank 3 of pg 0 (default_pg) left no dump: did it crash or get killed?; every rank with a dump (ranks 0-2,4-7) started all_reduce #3001 of pg 0 (default_pg) and none completed it: they wait for rank 3 without a dump, or the collective itself cannot finish"
	if len(a.Verdict) != 1 || a.Verdict[0] != want {
		t.Errorf("verdict = %q, want %q", a.Verdict, want)
	}
	if len(a.Findings) != 2 || a.Findings[0].Kind != FindingNoDump || a.Findings[1].Kind != FindingAllStuck {
		t.Errorf("findings = %+v", a.Findings)
	}
}

func TestAnalyzeDuplicateRank(t *testing.T) {
	dumps := loadScenario(t, "healthy_json")
	a := Analyze(append(dumps, dumps[0]))
	if len(a.Warnings) != 1 || !strings.Contains(a.Warnings[0], "two dumps for rank 0") {
		t.Errorf("warnings = %q", a.Warnings)
	}
	if !reflect.DeepEqual(a.Ranks, []int{0, 1}) {
		t.Errorf("ranks = %v", a.Ranks)
	}
}

func TestRankStates(t *testing.T) {
	a := Analyze(loadScenario(t, "missing_rank"))
	if len(a.Groups) != 1 {
		t.Fatalf("%d groups", len(a.Groups))
	}
	g := a.Groups[0]
	if g.StuckSeq != 3001 || g.StuckOp != "all_reduce" {
		t.Errorf("stuck = %s #%d", g.StuckOp, g.StuckSeq)
	}
	for _, s := range g.States {
		wantEnq := int64(3001)
		if s.Rank == 3 {
			wantEnq = 3000
		}
		if s.LastEnqueued != wantEnq || s.LastCompleted != 3000 || !s.FromStatus {
			t.Errorf("rank %d state = %+v", s.Rank, s)
		}
	}
}

func TestDumpFields(t *testing.T) {
	d, err := LoadDump("testdata/missing_rank/nccl_trace_rank_5")
	if err != nil {
		t.Fatal(err)
	}
	if d.Rank != 5 || d.Format != "pickle" || d.Version != "2.10" || d.CommLibVersion != "2.21.5" {
		t.Errorf("dump header = rank %d %s %s %s", d.Rank, d.Format, d.Version, d.CommLibVersion)
	}
	g, ok := d.Group("0")
	if !ok || g.Desc != "default_pg" || !reflect.DeepEqual(g.Ranks, []int{0, 1, 2, 3, 4, 5, 6, 7}) {
		t.Errorf("pg_config = %+v", d.ProcessGroups)
	}
	last := d.Entries[len(d.Entries)-1]
	if last.Op != "all_reduce" || last.Backend != "nccl" || last.State != StateStarted || last.CollectiveSeqID != 3001 ||
		!reflect.DeepEqual(last.InputSizes, [][]int64{{4096, 1024}}) || last.InputDtypes[0] != "BFloat16" ||
		last.TimeDiscoveredCompletedNs != 0 || last.TimeDiscoveredStartedNs == 0 || last.PGDesc != "default_pg" ||
		len(last.Frames) != 2 || last.Frames[1].Line != 88 {
		t.Errorf("last entry = %+v", last)
	}
	if last.TimeCreatedNs != 1732000000000000000+3001*1000000+5*1000 {
		t.Errorf("time_created_ns = %d lost precision", last.TimeCreatedNs)
	}
	j, err := LoadDump("testdata/size_mismatch_json/nccl_trace_rank_1.json")
	if err != nil {
		t.Fatal(err)
	}
	if j.Rank != 1 || j.Format != "json" || len(j.Status) != 1 || j.Status[0].LastCompleted != 4 || j.Entries[4].InputSizes[0][0] != 2048 {
		t.Errorf("json dump = %+v", j)
	}
}

// The dump the GPU helper recorded on the H200 with torch 2.11 (one rank,
// NCCL 2.28.9): pg_status says -1 for started and completed, the entries
// say completed.
func TestRealH200Dump(t *testing.T) {
	d, err := LoadDump("testdata/h200/flight-recorder-rank0.pickle")
	if err != nil {
		t.Fatal(err)
	}
	if d.Rank != 0 || d.Version != "2.10" || d.CommLibVersion != "2.28.9" || len(d.Entries) != 11 {
		t.Fatalf("dump = rank %d version %s nccl %s, %d entries", d.Rank, d.Version, d.CommLibVersion, len(d.Entries))
	}
	if len(d.Status) != 1 || d.Status[0].LastStarted != -1 || d.Status[0].LastEnqueued != 11 {
		t.Errorf("pg_status = %+v", d.Status)
	}
	ops := map[string]int{}
	for _, e := range d.Entries {
		ops[e.Op]++
		if e.State != StateCompleted || e.TimeDiscoveredStartedNs != 0 || e.TimeDiscoveredCompletedNs == 0 {
			t.Errorf("entry %d: state %s started %d completed %d", e.RecordID, e.State, e.TimeDiscoveredStartedNs, e.TimeDiscoveredCompletedNs)
		}
	}
	if ops["all_reduce"] != 5 || ops["broadcast"] != 3 || ops["_all_gather_base"] != 1 || ops["all_reduce_barrier"] != 1 {
		t.Errorf("ops = %v", ops)
	}
	if e := d.Entries[0]; e.InputSizes[0][0] != 1048576 || e.Frames[0].Name != "all_reduce" || e.TimeCreatedNs != 1795943495763644328 {
		t.Errorf("first entry = %+v", e)
	}
	a := Analyze([]*Dump{d})
	if want := "pg 0 (default_pg): rank 0 completed every collective up to #11"; len(a.Verdict) != 1 || a.Verdict[0] != want {
		t.Errorf("verdict = %q, want %q", a.Verdict, want)
	}
}

func TestPickleProtocols(t *testing.T) {
	want, err := LoadDump("testdata/unpaired_send/nccl_trace_rank_0")
	if err != nil {
		t.Fatal(err)
	}
	for _, proto := range []string{"protocol0", "protocol4", "protocol5"} {
		t.Run(proto, func(t *testing.T) {
			got, err := LoadDump(filepath.Join("testdata", proto, "nccl_trace_rank_0"))
			if err != nil {
				t.Fatal(err)
			}
			got.File = want.File
			if !reflect.DeepEqual(got, want) {
				g, _ := json.Marshal(got)
				w, _ := json.Marshal(want)
				t.Errorf("protocol dump differs:\n got %s\nwant %s", g, w)
			}
		})
	}
}

func TestBrokenDumps(t *testing.T) {
	full, err := os.ReadFile("testdata/missing_rank/nccl_trace_rank_0")
	if err != nil {
		t.Fatal(err)
	}
	jsonFull, err := os.ReadFile("testdata/healthy_json/nccl_trace_rank_0.json")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name        string
		data        []byte
		kind        error
		minEntries  int // entries kept
		wantOffset  bool
		wantLineGT0 bool
	}{
		{"pickle cut in half", full[:len(full)/2], ErrTruncated, 3, true, false},
		{"pickle cut before STOP", full[:len(full)-1], ErrTruncated, 11, true, false},
		{"pickle, bad opcode", append(append([]byte{}, full[:len(full)-1]...), 0xff), ErrMalformed, 11, true, false},
		{"json cut", jsonFull[:len(jsonFull)/2], ErrTruncated, 0, false, true},
		{"foreign text", []byte("hello\n"), parse.ErrFormat, 0, true, false},
		{"foreign json", []byte(`{"a": 1}`), parse.ErrFormat, 0, false, true},
		{"empty", nil, parse.ErrFormat, 0, true, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, err := ParseDump(bytes.NewReader(c.data), "nccl_trace_rank_0")
			if !errors.Is(err, c.kind) {
				t.Fatalf("error = %v, want %v", err, c.kind)
			}
			var pe *parse.Error
			if !errors.As(err, &pe) {
				t.Fatalf("error %T is not *parse.Error", err)
			}
			if c.wantOffset && !pe.Binary {
				t.Errorf("error names no byte offset: %v", err)
			}
			if c.wantLineGT0 && pe.Line <= 0 {
				t.Errorf("error names no line: %v", err)
			}
			if d == nil || len(d.Entries) < c.minEntries {
				t.Errorf("kept %d entries, want at least %d", len(d.Entries), c.minEntries)
			}
		})
	}
}

func TestRawUnicodeUnescape(t *testing.T) {
	cases := map[string]string{
		`plain`:           "plain",
		`a\u000ab`:        "a\nb",
		`back\u005cslash`: `back\slash`,
		`\U0001f600`:      "\U0001f600",
		"caf\xe9":         "café",
		`\uZZZZ`:          `\uZZZZ`,
	}
	for in, want := range cases {
		if got := rawUnicodeUnescape(in); got != want {
			t.Errorf("rawUnicodeUnescape(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRankRanges(t *testing.T) {
	cases := map[string][]int{
		"0-2,4-7": {0, 1, 2, 4, 5, 6, 7},
		"3":       {3},
		"1,3,5":   {5, 3, 1},
		"":        nil,
	}
	for want, in := range cases {
		if got := RankRanges(in); got != want {
			t.Errorf("RankRanges(%v) = %q, want %q", in, got, want)
		}
	}
	names := map[string]int{"/tmp/nccl_trace_rank_12": 12, "trace_3.json": 3, "dump": -1}
	for in, want := range names {
		if got := RankFromName(in); got != want {
			t.Errorf("RankFromName(%q) = %d, want %d", in, got, want)
		}
	}
}

func FuzzParseDump(f *testing.F) {
	for _, name := range append(scenarios, "protocol0", "protocol4", "protocol5") {
		paths, _ := filepath.Glob(filepath.Join("testdata", name, "*rank*"))
		for _, p := range paths[:1] {
			data, err := os.ReadFile(p)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := ParseDump(bytes.NewReader(data), "nccl_trace_rank_0")
		if d == nil {
			t.Fatalf("nil dump (err %v)", err)
		}
		if err != nil {
			var pe *parse.Error
			if !errors.As(err, &pe) {
				t.Fatalf("error %T is not *parse.Error: %v", err, err)
			}
		}
		a := Analyze([]*Dump{d, d})
		_ = a.Text()
		if _, err := json.Marshal(a); err != nil {
			t.Fatalf("analysis does not marshal: %v", err)
		}
	})
}

// The pickle and the JSON dump of the project's healthy 2xH200 run (torch
// 2.11): the pickle's pg_status says last_completed 1 while all 11 of its
// entries say completed. The later evidence (the entries) wins, both
// forms give the same verdict, and the disagreement is reported.
func TestReconcilePickleWithJSON(t *testing.T) {
	const dir = "../../probes/testdata/h200/x2/"
	want := "pg 0 (default_pg): all 2 dumped ranks completed every collective up to #11"
	for _, form := range []string{"pickle", "json"} {
		t.Run(form, func(t *testing.T) {
			dumps, err := LoadDumps([]string{dir + "flight-recorder-rank0." + form, dir + "flight-recorder-rank1." + form})
			if err != nil {
				t.Fatal(err)
			}
			a := Analyze(dumps)
			if len(a.Verdict) != 1 || a.Verdict[0] != want {
				t.Errorf("verdict = %q, want %q", a.Verdict, want)
			}
			if len(a.Findings) != 0 {
				t.Errorf("findings = %+v", a.Findings)
			}
			if g := a.Groups[0]; g.Timing != TimingOff {
				t.Errorf("timing = %q (%s), want off", g.Timing, g.TimingWhy)
			}
			noted := strings.Join(a.Notes, "\n")
			if form == "pickle" && !strings.Contains(noted, "pg_status says last completed #1, the entries #11: the entries are later") {
				t.Errorf("notes = %q: the disagreement is not reported", a.Notes)
			}
			if form == "json" && noted != "" {
				t.Errorf("notes = %q: the JSON dump agrees with itself", a.Notes)
			}
		})
	}
}

// The recording's folder holds each rank's dump twice (pickle and JSON),
// topology JSON, logs and nvidia-smi text: only dumps count, one per rank,
// the one that saw the job further.
func TestLoadSetSortsByContent(t *testing.T) {
	s, err := LoadSet([]string{"../../probes/testdata/h200/x2"})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Dumps) != 2 || s.Dumps[0].Rank != 0 || s.Dumps[1].Rank != 1 {
		t.Fatalf("dumps = %v", s.Dumps)
	}
	for _, d := range s.Dumps {
		if d.Format != "json" {
			t.Errorf("rank %d kept its %s dump; the JSON one was written later", d.Rank, d.Format)
		}
	}
	reasons := map[string]string{}
	for _, sk := range s.Skipped {
		reasons[filepath.Base(sk.File)] = sk.Reason
	}
	for file, want := range map[string]string{
		"probe-topo.json":              "not a Flight Recorder dump",
		"nvidia-smi-q.txt":             "not a Flight Recorder dump",
		"flight-recorder-rank0.pickle": "a second dump of rank 0",
	} {
		if !strings.Contains(reasons[file], want) {
			t.Errorf("%s: skipped for %q, want %q", file, reasons[file], want)
		}
	}
	if a := Analyze(s.Dumps); len(a.Ranks) != 2 {
		t.Errorf("ranks %v: a file that is no dump was counted", a.Ranks)
	}
}

func loadSetDir(t *testing.T, dir string) *Set {
	t.Helper()
	s, err := LoadSet([]string{filepath.Join("testdata", dir)})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Four-rank hangs built from the 2xH200 recording (gen_h200_hangs.py): what
// a dump can and cannot know.
func TestConstructedHangs(t *testing.T) {
	cases := []struct {
		dir     string
		kinds   []string
		timing  Timing
		first   string   // the verdict's start
		want    []string // in the verdict
		wantNot []string
	}{
		{"h200x4_all_started", []string{FindingAllStuck}, TimingOn,
			"every rank with a dump (ranks 0-3) started all_reduce #12 of pg 0 (default_pg) and none completed it",
			[]string{"no rank is behind, the collective itself cannot finish"}, []string{"never started", "stream is busy"}},
		{"h200x4_timing_off", []string{FindingAllStuck}, TimingOff,
			"every rank with a dump (ranks 0-3) enqueued all_reduce #12 of pg 0 (default_pg) and none completed it",
			[]string{"start events are off (TORCH_NCCL_ENABLE_TIMING unset), so the dump cannot tell whether the GPUs started it"},
			[]string{"never started", "stream is busy"}},
		{"h200x4_no_dump", []string{FindingNoDump, FindingAllStuck}, TimingOff,
			"rank 3 of pg 0 (default_pg) left no dump: did it crash or get killed?",
			[]string{"ranks 0-2", "wait for rank 3 without a dump"}, []string{"stream is busy"}},
		{"h200x4_apart", []string{FindingMissing}, TimingOff,
			"rank 2 never called all_reduce #12 (input 1048576 Float) of pg 0 (default_pg): its last enqueued collective is #11",
			[]string{"ranks 0,1,3 are waiting in all_reduce #12"}, []string{"stream is busy"}},
		{"h200x4_mixed", []string{FindingAllStuck}, TimingOff,
			"every rank with a dump (ranks 0-3) enqueued all_reduce #12", nil, nil},
	}
	for _, c := range cases {
		t.Run(c.dir, func(t *testing.T) {
			s := loadSetDir(t, c.dir)
			a := Analyze(s.Dumps)
			var kinds []string
			for _, f := range a.Findings {
				kinds = append(kinds, f.Kind)
			}
			if !reflect.DeepEqual(kinds, c.kinds) {
				t.Errorf("kinds = %v, want %v", kinds, c.kinds)
			}
			if g := a.Groups[0]; g.Timing != c.timing {
				t.Errorf("timing %q (%s), want %q", g.Timing, g.TimingWhy, c.timing)
			}
			v := strings.Join(a.Verdict, "\n")
			if !strings.HasPrefix(v, c.first) {
				t.Errorf("verdict %q does not start %q", v, c.first)
			}
			for _, w := range c.want {
				if !strings.Contains(v, w) {
					t.Errorf("verdict %q lacks %q", v, w)
				}
			}
			for _, w := range c.wantNot {
				if strings.Contains(v, w) {
					t.Errorf("verdict %q claims %q", v, w)
				}
			}
		})
	}
	if s := loadSetDir(t, "h200x4_mixed"); len(s.Skipped) != 1 || filepath.Base(s.Skipped[0].File) != "probe-topo.json" {
		t.Errorf("mixed folder skipped %+v, want probe-topo.json only", s.Skipped)
	}
}

// Where the dumps do not show whether start events were on, the caller's
// knowledge (the job's environment or log) is used and named.
func TestTimingFromOptions(t *testing.T) {
	s := loadSetDir(t, "h200x4_timing_off")
	for _, d := range s.Dumps {
		d.Status = nil // no pg_status: the dumps alone cannot tell
	}
	if got := Analyze(s.Dumps).Groups[0].Timing; got != TimingUnknown {
		t.Fatalf("timing from dumps without pg_status = %q, want unknown", got)
	}
	a := AnalyzeWith(s.Dumps, Options{Timing: TimingOff, TimingSource: "TORCH_NCCL_ENABLE_TIMING: 0 in the job's log"})
	if g := a.Groups[0]; g.Timing != TimingOff || g.TimingWhy != "TORCH_NCCL_ENABLE_TIMING: 0 in the job's log" {
		t.Errorf("timing = %q (%s)", g.Timing, g.TimingWhy)
	}
	u := Analyze(s.Dumps)
	if v := strings.Join(u.Verdict, ""); !strings.Contains(v, "start events are not known to be on") {
		t.Errorf("verdict with timing unknown: %q", v)
	}
}
