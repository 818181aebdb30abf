package overlap

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/commlab/commlab/parse/torchtrace"
)

// What the traces say: each variant's overlap inside its profiled steps,
// and when each core-question case's calls and GPU work began and ended.

func readTrace(fsys fs.FS, name string) (*torchtrace.Trace, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, fmt.Errorf("overlap: %w", err)
	}
	defer f.Close()
	tr, err := torchtrace.Parse(f)
	if err != nil {
		return tr, fmt.Errorf("overlap: %s: %w", name, err)
	}
	return tr, nil
}

func (v *Variant) analyze(fsys fs.FS, name string) error {
	tr, err := readTrace(fsys, name)
	if tr == nil || (err != nil && len(tr.Activities) == 0) {
		return err
	}
	an, aerr := tr.Analyze(torchtrace.Options{Within: StepRange, Device: -1})
	if aerr != nil {
		return errors.Join(err, fmt.Errorf("overlap: %s: %w", name, aerr))
	}
	v.Analysis = an
	if steps := tr.Ranges(StepRange); len(steps) > 0 {
		w := an.Windows[0]
		for _, a := range tr.Activities {
			if a.EndUS > w.StartUS && a.StartUS < w.EndUS && a.Device == an.Device {
				v.Timeline = append(v.Timeline, a)
			}
		}
	}
	return err
}

// span bounds the GPU work launched inside the first range called name;
// zeros when there is none.
func span(tr *torchtrace.Trace, name string) (start, end float64) {
	r, ok := first(tr, name)
	if !ok {
		return 0, 0
	}
	for _, a := range tr.LaunchedIn(r) {
		if end == 0 || a.StartUS < start {
			start = a.StartUS
		}
		end = math.Max(end, a.EndUS)
	}
	return start, end
}

// first returns the first range called name, and whether there is one.
func first(tr *torchtrace.Trace, name string) (torchtrace.Range, bool) {
	rs := tr.Ranges(name)
	if len(rs) == 0 {
		return torchtrace.Range{}, false
	}
	return rs[0], true
}

func (c *Case) read(fsys fs.FS, name string) error {
	tr, err := readTrace(fsys, name)
	if tr == nil || (err != nil && len(tr.Activities) == 0) {
		return err
	}
	call, ok := first(tr, "cq:call")
	if !ok {
		// The side-stream case issues a copy of its own instead.
		if call, ok = first(tr, "cq:side_copy"); !ok {
			return fmt.Errorf("overlap: %s: no cq:call or cq:side_copy range", name)
		}
	}
	c.CallStartUS, c.CallReturnUS = call.StartUS, call.EndUS
	if w, ok := first(tr, "cq:wait"); ok {
		c.WaitStartUS, c.WaitReturnUS = w.StartUS, w.EndUS
	}
	if q, ok := first(tr, "cq:gemms_before"); ok {
		for _, a := range tr.LaunchedIn(q) {
			c.QueuedEndUS = math.Max(c.QueuedEndUS, a.EndUS)
		}
	}
	kinds := map[string]bool{}
	for _, a := range tr.LaunchedIn(call) {
		if c.CommActivities == 0 || a.StartUS < c.CommStartUS {
			c.CommStartUS = a.StartUS
		}
		c.CommEndUS = math.Max(c.CommEndUS, a.EndUS)
		c.CommActivities++
		kinds[a.Name] = true
	}
	ks := slices.Sorted(maps.Keys(kinds))
	c.CommKinds = strings.Join(ks, "; ")
	if r, ok := first(tr, "cq:after_wait"); ok {
		for _, a := range tr.LaunchedIn(r) {
			if c.AfterStartUS == 0 || a.StartUS < c.AfterStartUS {
				c.AfterStartUS = a.StartUS
			}
		}
	}
	c.ModifyStartUS, c.ModifyEndUS = span(tr, "cq:modify")
	c.NewStartUS, c.NewEndUS = span(tr, "cq:new_tensor")
	return err
}
