package costmodel

import "strings"

// Entry is the row of NCCL's table for one collective, algorithm and
// protocol, the names compared as NCCL's environment compares them
// (without regard to case: "ring", "Ring", "RING"). The zero TunerEntry,
// and false, when the table has no such row.
func (T TunerTable) Entry(c Collective, algorithm, protocol string) (TunerEntry, bool) {
	for _, e := range T.Entries {
		if e.Collective == c && strings.EqualFold(e.Algorithm, algorithm) && strings.EqualFold(e.Protocol, protocol) {
			return e, true
		}
	}
	return TunerEntry{}, false
}
