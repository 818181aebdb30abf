package costmodel

import (
	"errors"
	"strings"

	"github.com/commlab/commlab/units"
)

// ErrUnit is returned (wrapped) by the unit parsers for malformed,
// ambiguous or out-of-range input; callers can branch on it with errors.Is.
// The errors also wrap the units package's sentinel (units.ErrSize,
// units.ErrRate, units.ErrDuration), whose grammar they follow.
var ErrUnit = errors.New("costmodel: bad unit")

// unitError carries a units error under ErrUnit, keeping units' message.
type unitError struct{ err error }

func (e unitError) Error() string   { return e.err.Error() }
func (e unitError) Unwrap() []error { return []error{ErrUnit, e.err} }

// Bytes is a size in bytes. It is a float64 so that sweeps and averages
// need no conversions; sizes a person types are whole numbers anyway.
type Bytes float64

// Seconds is a duration in seconds.
type Seconds float64

// Direction says whether a bandwidth counts one direction of a link or both
// directions added together (the "900 GB/s" of NVLink 4 is both ways).
type Direction int

const (
	// OneWay is the rate in each direction; the default when not said.
	OneWay Direction = iota
	// Bidirectional is both directions added together.
	Bidirectional
)

// String returns "one-way" or "bidirectional".
func (d Direction) String() string {
	if d == Bidirectional {
		return "bidirectional"
	}
	return "one-way"
}

// Bandwidth is a data rate in bytes per second, with the direction the
// number counts.
type Bandwidth struct {
	BytesPerSecond float64
	Direction      Direction
}

// OneWay returns the rate of one direction in bytes per second: the beta of
// the alpha-beta model.
func (b Bandwidth) OneWay() float64 {
	if b.Direction == Bidirectional {
		return b.BytesPerSecond / 2
	}
	return b.BytesPerSecond
}

// GBps returns the rate as printed (either direction convention) in GB/s,
// 1 GB/s = 1e9 bytes per second, as nccl-tests prints it.
func (b Bandwidth) GBps() float64 { return b.BytesPerSecond / 1e9 }

// Gbps returns the rate in gigabits per second, the unit of network ports.
func (b Bandwidth) Gbps() float64 { return b.BytesPerSecond * 8 / 1e9 }

// String prints the rate in SI bytes per second, e.g. "25 GB/s" or
// "900 GB/s bidirectional". ParseBandwidth reads it back.
func (b Bandwidth) String() string { return units.FormatRate(b.BytesPerSecond) + b.directionSuffix() }

// Bits prints the rate in SI bits per second, e.g. "400 Gb/s", the way
// network ports are sold. ParseBandwidth reads it back.
func (b Bandwidth) Bits() string { return units.FormatBitRate(b.BytesPerSecond) + b.directionSuffix() }

func (b Bandwidth) directionSuffix() string {
	if b.Direction == Bidirectional {
		return " bidirectional"
	}
	return ""
}

// String prints the size with an SI prefix (1 KB = 1000 B), e.g. "64 KB".
// ParseSize reads it back exactly enough for round trips.
func (b Bytes) String() string { return units.FormatSI(float64(b), "B") }

// IEC prints the size with a binary prefix (1 KiB = 1024 B), e.g. "64 KiB".
func (b Bytes) IEC() string { return units.FormatIEC(float64(b), "B") }

// String prints the duration in the largest of ns, µs, ms, s that keeps the
// number at least 1, at about 4 significant digits (units.Duration), e.g.
// "5 µs", "4.588 µs", "1.2 ms"; exact values stay in the float64.
func (s Seconds) String() string { return units.Duration(float64(s)) }

// ParseSize reads a size in the grammar of units.ParseSize: bytes ("8",
// "8B", "1e9"), binary with a bare prefix or KiB ("1M", "64KiB": 1 KiB =
// 1024 B, as nccl-tests reads -b/-e) and SI with KB ("64KB", "1GB": 1 KB =
// 1000 B). Bits ("1Gb") are refused. A fraction of a byte is kept
// (units.ParseBytes), so that String and IEC read back.
func ParseSize(s string) (Bytes, error) {
	v, err := units.ParseBytes(s)
	if err != nil {
		return 0, unitError{err}
	}
	return Bytes(v), nil
}

// ParseDuration reads a duration with a unit: "5us", "5 µs", "1.2ms",
// "800ns", "2s". A bare number is refused: nobody agrees whether it is
// seconds or microseconds.
func ParseDuration(s string) (Seconds, error) {
	v, err := units.ParseDuration(s)
	if err != nil {
		return 0, unitError{err}
	}
	return Seconds(v), nil
}

// ParseBandwidth reads a rate (units.ParseRate) and an optional direction.
//
//	"25GB/s", "25 GB/s", "25GBps"      bytes per second (SI)
//	"400Gb/s", "400Gbps"               bits per second: 400 Gb/s = 50 GB/s
//	"20GiB/s"                          IEC bytes per second
//	"900GB/s bidirectional"            both directions added ("bidir",
//	                                   "both ways" also work)
//	"450GB/s one-way"                  explicit one direction (default)
//
// "B" is bytes and "b" is bits, as on datasheets; prefixes may be either
// case. A number with no unit, or a unit with no "/s" ("25GB", "25G") is
// refused as ambiguous.
func ParseBandwidth(s string) (Bandwidth, error) {
	body := strings.TrimSpace(s)
	dir := OneWay
	lower := strings.ToLower(body)
	for _, d := range []struct {
		word string
		dir  Direction
	}{
		{"bidirectional", Bidirectional}, {"bidir", Bidirectional}, {"both ways", Bidirectional},
		{"one-way", OneWay}, {"one way", OneWay}, {"oneway", OneWay}, {"unidirectional", OneWay},
	} {
		if strings.HasSuffix(lower, d.word) {
			dir = d.dir
			body = strings.TrimSpace(body[:len(body)-len(d.word)])
			body = strings.TrimSpace(strings.TrimSuffix(body, ","))
			break
		}
	}
	v, err := units.ParseRate(body)
	if err != nil {
		return Bandwidth{}, unitError{err}
	}
	return Bandwidth{BytesPerSecond: v, Direction: dir}, nil
}
