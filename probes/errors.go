package probes

import "errors"

// ErrUnavailable says a Source cannot read what it was asked for on this
// machine: no driver, no device, no permission. Sources wrap it with the
// reason (`fmt.Errorf("nvml: %w: libnvidia-ml.so.1 not found", ErrUnavailable)`)
// so callers branch with errors.Is and still show the reason.
var ErrUnavailable = errors.New("probes: unavailable")
