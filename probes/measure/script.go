package measure

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/commlab/commlab/probes"
	"github.com/commlab/commlab/probes/launch"
)

// LiveOrRecorded is the flow of a measurement whose live side runs one of
// probes/launch's PyTorch scripts (probes/c10dlab, probes/overlap,
// probes/kvxfer), which read their recordings themselves: in recorded mode
// it calls recorded("", nil); otherwise check says whether this machine
// can run the script (the reason it cannot, and why), live runs it, and a
// live failure in auto mode calls recorded with the banner's fallback line
// and the failure. An interrupt, or a failure in live mode, ends the call
// with an error prefixed by pkg. What live or recorded return is the
// call's error; they keep their result themselves.
func LiveOrRecorded(ctx context.Context, mode Mode, pkg string, check func() (reason string, err error), live func() error, recorded func(fallback string, liveErr error) error) error {
	mode, err := ParseMode(string(mode))
	if err != nil {
		return err
	}
	if mode == ModeRecorded {
		return recorded("", nil)
	}
	reason, lerr := check()
	if lerr == nil {
		reason, lerr = failed, live()
	}
	if lerr == nil {
		return nil
	}
	if cerr := ctx.Err(); cerr != nil {
		return fmt.Errorf("%s: live run interrupted: %w", pkg, cerr)
	}
	if mode == ModeLive {
		return fmt.Errorf("%s: live: %s: %w", pkg, reason, lerr)
	}
	// launch's "no PyTorch with a GPU here" and "no NIXL" say the reason
	// already.
	fallback := reason + ": " + launch.ScriptLine(lerr.Error())
	if errors.Is(lerr, launch.ErrNoTorch) || errors.Is(lerr, launch.ErrNoNIXL) {
		fallback = launch.ScriptLine(strings.TrimPrefix(lerr.Error(), "launch: "))
	}
	return recorded(fallback, lerr)
}

// Script is LiveOrRecorded for a script whose result R holds its run and
// the errors the script reported (probes/c10dlab, probes/overlap): a live
// run whose script reported errors fails as "pkg: the what reported: ...",
// and recorded loads the run to show in its place. It returns the banner
// and the result shown, or nil and nil when there is none.
func Script[R any](ctx context.Context, mode Mode, pkg, what, name string, check func() (reason string, err error), live, recorded func() (*R, error), parts func(*R) (run *probes.Run, reported []string)) (*Measurement, *R, error) {
	var m *Measurement
	var shown *R
	err := LiveOrRecorded(ctx, mode, pkg, check, func() error {
		res, err := live()
		if err != nil {
			return err
		}
		run, reported := parts(res)
		if len(reported) > 0 {
			return fmt.Errorf("%s: the %s reported: %s", pkg, what, strings.Join(reported, "; "))
		}
		m, shown = &Measurement{Run: run, Live: true}, res
		return nil
	}, func(fallback string, lerr error) error {
		res, err := recorded()
		if res == nil {
			return err
		}
		if run, _ := parts(res); run != nil {
			m, shown = &Measurement{Run: run, Recorded: name, Fallback: fallback, LiveError: lerr}, res
		}
		return err
	})
	return m, shown, err
}
