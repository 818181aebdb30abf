package flightrec

// Finding kinds.
const (
	// FindingMissing: member ranks never enqueued the collective the others
	// are waiting in.
	FindingMissing = "missing"
	// FindingNotStarted: ranks enqueued the collective but their GPU never
	// started it (the stream is blocked behind earlier work).
	FindingNotStarted = "not-started"
	// FindingOpMismatch: ranks ran different operations under the same
	// sequence id (collectives called in a different order).
	FindingOpMismatch = "op-mismatch"
	// FindingSizeMismatch and FindingDtypeMismatch: same operation, different
	// tensor sizes or dtypes.
	FindingSizeMismatch  = "size-mismatch"
	FindingDtypeMismatch = "dtype-mismatch"
	// FindingUnpairedP2P: a send without its receive, or the reverse.
	FindingUnpairedP2P = "unpaired-p2p"
	// FindingNoDump: member ranks left no dump file.
	FindingNoDump = "no-dump"
	// FindingCrossGroup: ranks wait on each other across process groups,
	// each in a collective of one group that the other never called.
	FindingCrossGroup = "cross-group"
	// FindingAllStuck: every rank that left a dump is inside the same
	// collective and none completed it. Nobody is behind: the collective
	// itself cannot finish (a broken link, a dead NIC, a GPU fault, a rank
	// that died inside it).
	FindingAllStuck = "all-stuck"
)

// Finding is one thing the analysis found wrong in a process group.
type Finding struct {
	Kind   string `json:"kind"`
	PG     string `json:"pg"`
	PGDesc string `json:"pg_desc,omitempty"`
	SeqID  int64  `json:"seq_id,omitempty"`
	Op     string `json:"op,omitempty"`
	// Ranks are the ranks the finding is about (the culprits); Others are
	// the rest of the group that behave as expected.
	Ranks  []int  `json:"ranks"`
	Others []int  `json:"others,omitempty"`
	Detail string `json:"detail"`
}

// RankState is how far one rank got in one process group's collectives.
type RankState struct {
	Rank   int  `json:"rank"`
	Dumped bool `json:"dumped"`
	// Last collective sequence ids enqueued, started and completed (0 when
	// none). FromStatus says they come from pg_status rather than from the
	// entries, which the ring buffer may have dropped.
	LastEnqueued  int64 `json:"last_enqueued"`
	LastStarted   int64 `json:"last_started"`
	LastCompleted int64 `json:"last_completed"`
	FromStatus    bool  `json:"from_status"`
	// Entries is how many collective entries this rank recorded for the
	// group, and FirstSeq the oldest one still in its buffer.
	Entries  int   `json:"entries"`
	FirstSeq int64 `json:"first_seq,omitempty"`
	// Reconciled says where pg_status and the entries disagreed and which
	// was taken: each counter only grows, so the larger one is the later
	// evidence.
	Reconciled string `json:"reconciled,omitempty"`
}

// GroupReport is the analysis of one process group across the dumps.
type GroupReport struct {
	PG   string `json:"pg"`
	Desc string `json:"desc,omitempty"`
	// Backend is the profiling names' prefix ("nccl", "gloo").
	Backend string `json:"backend,omitempty"`
	// NoEvents is set when no entry of the group, on any rank, went past
	// "scheduled": a CPU backend such as gloo records no start or end
	// events, so its entries never say started or completed and its
	// pg_status counts a collective that failed as completed. Then only
	// the enqueued sequence ids are evidence: a rank that never called a
	// collective the others called is behind, and "never started on the
	// GPU" is no verdict.
	NoEvents bool `json:"no_events,omitempty"`
	// Timing is whether the group recorded start events (see Timing), and
	// TimingWhy the evidence.
	Timing    Timing      `json:"timing,omitempty"`
	TimingWhy string      `json:"timing_why,omitempty"`
	Members   []int       `json:"members"`
	NoDump    []int       `json:"no_dump,omitempty"`
	States    []RankState `json:"states"`
	StuckSeq  int64       `json:"stuck_seq,omitempty"` // 0: nothing pending
	StuckOp   string      `json:"stuck_op,omitempty"`
	Findings  []Finding   `json:"findings,omitempty"`
	Verdict   string      `json:"verdict"`
}

// Analysis is the cross-rank reading of a set of dumps.
type Analysis struct {
	Ranks    []int         `json:"ranks"`
	Groups   []GroupReport `json:"groups"`
	Findings []Finding     `json:"findings"`
	// Verdict has one readable line per process group, problems first.
	Verdict []string `json:"verdict"`
	// Warnings name dumps left out, such as a second dump for one rank.
	Warnings []string `json:"warnings,omitempty"`
	// Notes say where the dumps contradicted themselves and which
	// evidence was taken (pg_status against the entries).
	Notes []string `json:"notes,omitempty"`
}

// Options are what Analyze cannot read from the dumps themselves.
type Options struct {
	// Timing, when known from the job's environment or log, is used where
	// the dumps do not show it; TimingSource names where it came from.
	Timing       Timing
	TimingSource string
}
