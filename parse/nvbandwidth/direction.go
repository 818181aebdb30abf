package nvbandwidth

import (
	"regexp"
	"strings"
)

// What a bidirectional testcase's numbers are (DirectionNote), from
// nvbandwidth's testcases_ce.cpp, testcases_sm.cpp and memcpy.cpp (v0.5 to
// v0.8) and its testcase list (v0.10).
const (
	// OneWay: the copy in one direction, timed on its own stream while a
	// copy the other way runs and is not counted (CE); for SM copies, half
	// of a kernel whose warps copy both ways at once (v0.7+). Host-device
	// testcases and the per-direction matrices of device-to-device ones.
	OneWay = "one direction, measured while the reverse runs"
	// TwoWaySum: the "Total" matrix of a device-to-device testcase (v0.6+),
	// each cell the sum of the two one-way cells above it.
	TwoWaySum = "both directions added: the sum of the two one-way rates, each measured while the other ran"
	// TwoWayAggregate: device-to-device SM testcases up to v0.5, which
	// divide the bytes of both copies by their common time.
	TwoWayAggregate = "both directions together: the bytes of both copies over their common time (nvbandwidth v0.5 and older)"
)

// IsTwoWay reports whether the testcase's numbers count both directions.
func (t Testcase) IsTwoWay() bool {
	return t.DirectionNote == TwoWaySum || t.DirectionNote == TwoWayAggregate
}

// classify sets Bidirectional and DirectionNote from the name (or the
// group), the description and the report's version.
func classify(t *Testcase, version string) {
	name := t.Name
	if t.Group != "" {
		name = t.Group
	}
	t.Bidirectional = strings.Contains(name, "bidirectional")
	if !t.Bidirectional {
		return
	}
	sm := t.Method == "SM" || (t.Method == "" && strings.HasSuffix(name, "_sm"))
	switch {
	case strings.HasSuffix(t.Name, "_total") || strings.Contains(t.Description, " Total bandwidth"):
		t.DirectionNote = TwoWaySum
	case strings.HasPrefix(name, "device_to_device_") && sm && t.Group == "" && !before06(version, true):
		t.DirectionNote = OneWay
	case strings.HasPrefix(name, "device_to_device_") && sm && t.Group == "":
		t.DirectionNote = TwoWayAggregate
	default:
		t.DirectionNote = OneWay
	}
}

var reVersion = regexp.MustCompile(`^v?(\d+)\.(\d+)`)

// before06 reports whether version is older than v0.6, the release that
// split device-to-device bidirectional results by direction; unknown
// versions give ifUnknown.
func before06(version string, ifUnknown bool) bool {
	m := reVersion.FindStringSubmatch(strings.TrimSpace(version))
	if m == nil {
		return ifUnknown
	}
	major, minor := atoi(m[1]), atoi(m[2])
	return major == 0 && minor < 6
}
