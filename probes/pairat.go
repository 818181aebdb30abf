package probes

// FirstPairAt is the first pair of distinct devices, in the matrix's order,
// whose path is at level: what a page names as an example of the level.
// ok is false when no pair is.
func (t *Topology) FirstPairAt(level Level) (a, b string, ok bool) {
	for _, a := range t.Devices {
		for _, b := range t.Devices {
			if p, found := t.PathBetween(a, b); found && a != b && p.Level == level {
				return a, b, true
			}
		}
	}
	return "", "", false
}
