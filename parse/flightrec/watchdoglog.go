package flightrec

import (
	"bufio"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// WatchdogRank is what ProcessGroupNCCL's watchdog logged about one rank's
// timed-out work: the work ("WorkNCCL(SeqNum=..., OpType=..., ...) ran for
// ... milliseconds") and, where its next line was kept, the rank's last
// enqueued and last completed sequence numbers in that process group
// ("... at work: N, last enqueued NCCL work: E, last completed NCCL work:
// C"; PyTorch logs them since pytorch/pytorch#118582, 2024). The Flight
// Recorder's dump holds the same numbers per group; the log is what most
// people post.
type WatchdogRank struct {
	Rank   int    `json:"rank"`
	PG     string `json:"pg,omitempty"`
	SeqNum int64  `json:"seq"`
	OpType string `json:"op,omitempty"`
	// NumelIn and NumelOut are 0 where the line does not give them
	// (PyTorch before 2.3 did not).
	NumelIn   int64 `json:"numel_in,omitempty"`
	NumelOut  int64 `json:"numel_out,omitempty"`
	TimeoutMS int64 `json:"timeout_ms,omitempty"`
	RanForMS  int64 `json:"ran_for_ms,omitempty"`
	// LastEnqueued and LastCompleted are -1 where no line gave them.
	LastEnqueued  int64 `json:"last_enqueued"`
	LastCompleted int64 `json:"last_completed"`
}

// Enqueued is the rank's last enqueued sequence number as far as the log
// tells: its last enqueued work where logged, else the work that timed out
// (the watchdog watches only work the rank enqueued).
func (w WatchdogRank) Enqueued() int64 {
	return max(w.SeqNum, w.LastEnqueued)
}

// WatchdogLog is the watchdog's lines of one log, one entry per rank and
// timed-out work, ranks in order.
type WatchdogLog struct {
	Ranks []WatchdogRank `json:"ranks"`
}

var (
	watchdogCaught = regexp.MustCompile(`\[Rank (\d+)\] Watchdog caught collective operation timeout: WorkNCCL\(SeqNum=(\d+), OpType=(\w+)(?:, NumelIn=(\d+), NumelOut=(\d+))?, Timeout\(ms\)=(\d+)\) ran for (\d+) milliseconds`)
	// watchdogSeqs: "Timeout at NCCL work: N, last enqueued NCCL work: ..."
	// and, in torch 2.11, "failure detected by watchdog at work sequence
	// id: N PG status: last enqueued work: ...".
	watchdogSeqs = regexp.MustCompile(`\[PG (?:ID )?(\d+)[^\]]*?Rank (\d+)\]\s+(?:Exception \(either an error or timeout\) detected by watchdog at work|Timeout at NCCL work|failure detected by watchdog at work sequence id):? (\d+)(?:,| PG status:) last enqueued (?:NCCL )?work: (-?\d+), last completed (?:NCCL )?work: (-?\d+)`)
)

// ParseWatchdogLog reads ProcessGroupNCCL's watchdog lines out of a log
// (other lines, prefixes such as "[rank3]:[E626 06:24:44.9 ...]" and
// launcher tags are skipped). A log with no watchdog line is an error.
func ParseWatchdogLog(r io.Reader) (*WatchdogLog, error) {
	type key struct {
		rank int
		seq  int64
	}
	byKey := map[key]*WatchdogRank{}
	get := func(rank int, seq int64) *WatchdogRank {
		k := key{rank, seq}
		if w, ok := byKey[k]; ok {
			return w
		}
		w := &WatchdogRank{Rank: rank, SeqNum: seq, LastEnqueued: -1, LastCompleted: -1}
		byKey[k] = w
		return w
	}
	num := func(s string) int64 {
		n, _ := strconv.ParseInt(s, 10, 64) // the expressions admit digits only
		return n
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if m := watchdogCaught.FindStringSubmatch(line); m != nil {
			w := get(int(num(m[1])), num(m[2]))
			w.OpType, w.NumelIn, w.NumelOut = m[3], num(m[4]), num(m[5])
			w.TimeoutMS, w.RanForMS = num(m[6]), num(m[7])
			continue
		}
		if m := watchdogSeqs.FindStringSubmatch(line); m != nil {
			w := get(int(num(m[2])), num(m[3]))
			w.PG, w.LastEnqueued, w.LastCompleted = m[1], num(m[4]), num(m[5])
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("flightrec: watchdog log: %w", err)
	}
	if len(byKey) == 0 {
		return nil, fmt.Errorf("flightrec: watchdog log: no line of ProcessGroupNCCL's watchdog (\"Watchdog caught collective operation timeout\", \"last enqueued NCCL work\")")
	}
	out := &WatchdogLog{}
	for _, w := range byKey {
		out.Ranks = append(out.Ranks, *w)
	}
	sort.Slice(out.Ranks, func(i, j int) bool {
		a, b := out.Ranks[i], out.Ranks[j]
		if a.Rank != b.Rank {
			return a.Rank < b.Rank
		}
		return a.SeqNum < b.SeqNum
	})
	return out, nil
}

// Reading says what the log tells about the hang, the way
// pytorch/pytorch#118582 reads the two numbers: a rank whose last enqueued
// work is below the work the others timed out in never joined it (most
// likely the program's own path); ranks that all enqueued it and none
// completed it joined a collective that did not finish (a layer below:
// NCCL, the network, a GPU). A rank the log does not show may be the one
// that never joined; the reading says so.
func (l *WatchdogLog) Reading() string {
	if l == nil || len(l.Ranks) == 0 {
		return "no watchdog lines"
	}
	var stuck int64 = -1
	op := ""
	for _, w := range l.Ranks {
		if w.SeqNum > stuck {
			stuck, op = w.SeqNum, w.OpType
		}
	}
	var issued, behind []string
	for _, w := range l.Ranks {
		if e := w.Enqueued(); e < stuck {
			behind = append(behind, fmt.Sprintf("%d (last enqueued #%d)", w.Rank, e))
		} else {
			issued = append(issued, strconv.Itoa(w.Rank))
		}
	}
	what := fmt.Sprintf("work #%d", stuck)
	if op != "" {
		what = fmt.Sprintf("%s #%d", op, stuck)
	}
	if len(behind) > 0 {
		return fmt.Sprintf("%s never enqueued %s: behind the others, most likely on the program's own path; %s enqueued it and wait in it",
			ranksWord(behind), what, ranksWord(issued))
	}
	return fmt.Sprintf("%s enqueued %s and none completed it: the ranks shown all joined, so the collective itself did not finish (NCCL, the network or a GPU), unless a rank the log does not show never joined",
		ranksWord(issued), what)
}

// ranksWord is "rank 3" or "ranks 0, 1, 2".
func ranksWord(ranks []string) string {
	if len(ranks) == 1 {
		return "rank " + ranks[0]
	}
	return "ranks " + strings.Join(ranks, ", ")
}
