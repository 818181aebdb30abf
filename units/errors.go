package units

import "errors"

// The sentinels callers branch on with errors.Is: ErrSize for sizes and
// sweeps, ErrRate for rates, ErrDuration for durations and ErrCollective
// for a collective BusBWFactor does not know.
var (
	ErrSize       = errors.New("units: bad size")
	ErrRate       = errors.New("units: bad rate")
	ErrDuration   = errors.New("units: bad duration")
	ErrCollective = errors.New("units: unknown collective")
)
