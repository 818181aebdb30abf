package flightrec

import (
	"errors"
	"maps"
	"slices"

	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/commlab/commlab/parse"
)

// Timing says whether a process group recorded start events. ProcessGroupNCCL
// creates a work's start event only with timing on (TORCH_NCCL_ENABLE_TIMING=1,
// TORCH_NCCL_DESYNC_DEBUG=1 or TORCH_DISTRIBUTED_DEBUG=DETAIL): without it
// WorkNCCL::startedGPUExecutionInternal returns false, no entry ever says
// "started", pg_status keeps last_started_collective at -1, and a dump cannot
// tell a collective the GPU is running from one still queued behind earlier
// work (torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp).
type Timing string

const (
	TimingUnknown Timing = ""
	TimingOn      Timing = "on"
	TimingOff     Timing = "off"
)

func (t Timing) String() string {
	if t == TimingUnknown {
		return "unknown"
	}
	return string(t)
}

// Timing reads from the dump alone whether its ranks recorded start events,
// and why it says so. On: an entry started, carries a duration or a start
// time, or pg_status tracks a started collective. Off: pg_status says no
// collective ever started (-1) although some completed. Otherwise unknown.
func (d *Dump) Timing() (Timing, string) {
	if d == nil {
		return TimingUnknown, ""
	}
	completed := false
	for _, e := range d.Entries {
		switch {
		case e.State == StateStarted:
			return TimingOn, fmt.Sprintf("entry #%d is %q", e.RecordID, StateStarted)
		case e.HasDuration:
			return TimingOn, fmt.Sprintf("entry #%d records a duration", e.RecordID)
		case e.TimeDiscoveredStartedNs > 0:
			return TimingOn, fmt.Sprintf("entry #%d records when it started", e.RecordID)
		}
		completed = completed || e.State == StateCompleted
	}
	for _, s := range d.Status {
		if s.LastStarted >= 0 && s.LastEnqueued > 0 {
			return TimingOn, fmt.Sprintf("pg_status of pg %s tracks started collectives (last #%d)", s.PGID, s.LastStarted)
		}
	}
	for _, s := range d.Status {
		if s.LastStarted < 0 && (s.LastCompleted > 0 || completed) {
			return TimingOff, fmt.Sprintf("pg_status of pg %s says no collective started (last_started_collective -1) while collectives completed: start events are off (TORCH_NCCL_ENABLE_TIMING unset)", s.PGID)
		}
	}
	return TimingUnknown, ""
}

// Skipped is a file LoadSet left out, and why.
type Skipped struct {
	File   string `json:"file"`
	Reason string `json:"reason"`
}

// Set is what LoadSet read from a directory or a list of files: the dumps,
// one per rank, and the files it left out with the reason (not a dump, an
// unreadable dump, a second dump of one rank).
type Set struct {
	Dumps   []*Dump   `json:"-"`
	Skipped []Skipped `json:"skipped,omitempty"`
	// Notes say how ranks were assigned where a file name did not say.
	Notes []string `json:"notes,omitempty"`
	// Damaged are dumps kept with what they held (a truncated file).
	Damaged []string `json:"damaged,omitempty"`
}

// LoadSet reads paths (files, or directories whose regular files are read)
// and sorts them by content: files that are not Flight Recorder dumps are
// skipped with a note, as are dumps nothing could be read from; a rank with
// two dumps (the pickle and the JSON of one process, or two dumps taken at
// different times) keeps the one that saw more of the job. The rank comes
// from the file name, else from the dump's own point-to-point entries in the
// default group, else from its place among the unnamed files (said in
// Notes). The error is for paths that cannot be listed.
func LoadSet(paths []string) (*Set, error) {
	var files []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("flightrec: %w", err)
		}
		if !st.IsDir() {
			files = append(files, p)
			continue
		}
		entries, err := os.ReadDir(p)
		if err != nil {
			return nil, fmt.Errorf("flightrec: %w", err)
		}
		for _, e := range entries {
			if e.Type().IsRegular() {
				files = append(files, filepath.Join(p, e.Name()))
			}
		}
	}
	sort.Strings(files)
	s := &Set{}
	byRank := map[int]*Dump{}
	var unranked []*Dump
	for _, f := range files {
		d, err := LoadDump(f)
		switch {
		case errors.Is(err, ErrNotDump):
			s.Skipped = append(s.Skipped, Skipped{f, "not a Flight Recorder dump: " + errText(err)})
			continue
		case err != nil && empty(d):
			s.Skipped = append(s.Skipped, Skipped{f, "unreadable dump: " + errText(err)})
			continue
		case err != nil:
			s.Damaged = append(s.Damaged, fmt.Sprintf("%s: %s", f, errText(err)))
		}
		if d.Rank < 0 {
			if r, ok := rankFromContent(d); ok {
				d.Rank = r
				s.Notes = append(s.Notes, fmt.Sprintf("%s: rank %d from its own send/receive entries (the name gives none)", f, r))
			} else {
				unranked = append(unranked, d)
				continue
			}
		}
		if kept, dup := byRank[d.Rank]; dup {
			keep, drop := kept, d
			if less3(progress(kept), progress(d)) {
				keep, drop = d, kept
			}
			byRank[d.Rank] = keep
			s.Skipped = append(s.Skipped, Skipped{drop.File, fmt.Sprintf("a second dump of rank %d: kept %s, which saw the job further (%s)",
				d.Rank, filepath.Base(keep.File), progressText(keep, drop))})
			continue
		}
		byRank[d.Rank] = d
	}
	next := 0
	for _, d := range unranked {
		for byRank[next] != nil {
			next++
		}
		d.Rank = next
		byRank[next] = d
		s.Notes = append(s.Notes, fmt.Sprintf("%s: the name gives no rank and no entry tells it; counted as rank %d", d.File, next))
	}
	ranks := slices.Sorted(maps.Keys(byRank))
	for _, r := range ranks {
		s.Dumps = append(s.Dumps, byRank[r])
	}
	return s, nil
}

// errText is an error without the file name LoadSet already shows.
func errText(err error) string {
	var pe *parse.Error
	if errors.As(err, &pe) && pe.Msg != "" {
		return pe.Msg
	}
	return strings.TrimPrefix(err.Error(), "flightrec: ")
}

// empty says nothing was read from a dump.
func empty(d *Dump) bool {
	return d == nil || (d.Version == "" && len(d.Entries) == 0 && len(d.ProcessGroups) == 0 && len(d.Status) == 0)
}

// rankFromContent reads a rank from the dump's default-group sends and
// receives, whose profiling names carry the local rank ("nccl:send 0->1").
func rankFromContent(d *Dump) (int, bool) {
	for _, e := range d.Entries {
		if e.PGName != DefaultGroup || !e.IsP2P {
			continue
		}
		switch {
		case e.Op == "send" && e.Src >= 0:
			return e.Src, true
		case e.Op == "recv" && e.Dst >= 0:
			return e.Dst, true
		}
	}
	return 0, false
}

// progress orders two dumps of one rank: the one that recorded later
// collectives, completions and discoveries saw more of the job.
func progress(d *Dump) [3]int64 {
	var p [3]int64
	for _, e := range d.Entries {
		p[0] = max(p[0], e.CollectiveSeqID, e.P2PSeqID)
		if e.State == StateCompleted {
			p[1] = max(p[1], e.CollectiveSeqID)
		}
		p[2] = max(p[2], e.TimeDiscoveredCompletedNs, e.TimeDiscoveredStartedNs, e.TimeCreatedNs)
	}
	for _, s := range d.Status {
		p[0] = max(p[0], s.LastEnqueued)
		p[1] = max(p[1], s.LastCompleted)
	}
	return p
}

func progressText(keep, drop *Dump) string {
	k, d := progress(keep), progress(drop)
	if k[0] == d[0] && k[1] == d[1] {
		return fmt.Sprintf("both enqueued #%d and completed #%d; its entries were seen later", k[0], k[1])
	}
	return fmt.Sprintf("enqueued #%d and completed #%d against #%d and #%d", k[0], k[1], d[0], d[1])
}

func less3(a, b [3]int64) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}
