package customar

import (
	"bufio"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Algorithm names as the program prints them.
const (
	OneShot = "oneshot"
	TwoShot = "twoshot"
)

// Output is what one rank of customar printed, parsed.
type Output struct {
	// Rank and NRanks are this process's rank and the world size.
	Rank, NRanks int
	// Device is the CUDA ordinal, Bus its PCI bus id, GPU its name.
	Device int
	Bus    string
	GPU    string
	// Runtime and Driver are the CUDA runtime and driver API versions as
	// cudaRuntimeGetVersion gives them (13000 is 13.0).
	Runtime, Driver int
	// Launch is the "info launch" line's fields: blocks, threads,
	// timeout_ms, iters, warmup.
	Launch map[string]string
	// Peers are the mapped peers, in the order printed.
	Peers []Peer
	// Checks and Results are in the order printed.
	Checks  []Check
	Results []Result
	// Errors are the program's own error lines ("customar: ...").
	Errors []string
	// Done is true when the program printed its final "done".
	Done bool
}

// Peer is one "info peer R device D BUS HOW" line: HOW is "same-gpu" when
// the peer shares this rank's GPU, "p2p" when it is another GPU reached by
// peer-to-peer access.
type Peer struct {
	Rank, Device int
	Bus, How     string
}

// Check is one "check ALGO SIZE ok|bad [INDEX GOT WANT]" line: this rank's
// whole output after one call, against the exact sum.
type Check struct {
	Algo  string
	Bytes int64
	OK    bool
	// Index, Got and Want describe the first wrong element when !OK.
	Index     int64
	Got, Want float64
}

// Result is one "result ALGO SIZE ITERS USEC" line: USec is this rank's
// mean time per call over Iters calls, timed with CUDA events.
type Result struct {
	Algo  string
	Bytes int64
	Iters int
	USec  float64
}

// Parse reads one rank's output (stdout, or stdout and stderr together).
// Lines it does not know are skipped; a malformed info, check or result
// line is an error naming its line.
func Parse(out string) (*Output, error) {
	o := &Output{Rank: -1, Device: -1, Launch: map[string]string{}}
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		var err error
		switch f[0] {
		case "info":
			err = o.info(f[1:])
		case "check":
			var c Check
			if c, err = parseCheck(f[1:]); err == nil {
				o.Checks = append(o.Checks, c)
			}
		case "result":
			var r Result
			if r, err = parseResult(f[1:]); err == nil {
				o.Results = append(o.Results, r)
			}
		case "done":
			o.Done = len(f) == 1
		case Program.Name + ":":
			o.Errors = append(o.Errors, strings.TrimSpace(line))
		}
		if err != nil {
			return o, fmt.Errorf("customar: line %d: %w", n, err)
		}
	}
	if err := sc.Err(); err != nil {
		return o, fmt.Errorf("customar: %w", err)
	}
	return o, nil
}

func (o *Output) info(f []string) error {
	if len(f) == 0 {
		return fmt.Errorf("empty info line")
	}
	var err error
	switch f[0] {
	case "rank": // rank R nranks N pid P
		if len(f) < 4 || f[2] != "nranks" {
			return fmt.Errorf("info rank: want \"rank R nranks N\"")
		}
		if o.Rank, err = atoiMin(f[1], 0); err != nil {
			return fmt.Errorf("info rank: %w", err)
		}
		if o.NRanks, err = atoiMin(f[3], 1); err != nil {
			return fmt.Errorf("info nranks: %w", err)
		}
	case "device": // device D BUS NAME...
		if len(f) < 4 {
			return fmt.Errorf("info device: want \"device D BUS NAME\"")
		}
		if o.Device, err = atoiMin(f[1], 0); err != nil {
			return fmt.Errorf("info device: %w", err)
		}
		o.Bus, o.GPU = f[2], strings.Join(f[3:], " ")
	case "cuda": // cuda runtime RT driver DV
		if len(f) != 5 || f[1] != "runtime" || f[3] != "driver" {
			return fmt.Errorf("info cuda: want \"cuda runtime RT driver DV\"")
		}
		if o.Runtime, err = atoiMin(f[2], 0); err != nil {
			return fmt.Errorf("info cuda runtime: %w", err)
		}
		if o.Driver, err = atoiMin(f[4], 0); err != nil {
			return fmt.Errorf("info cuda driver: %w", err)
		}
	case "launch": // launch KEY VALUE ...
		for i := 1; i+1 < len(f); i += 2 {
			o.Launch[f[i]] = f[i+1]
		}
	case "peer": // peer R device D BUS HOW
		if len(f) != 6 || f[2] != "device" {
			return fmt.Errorf("info peer: want \"peer R device D BUS HOW\"")
		}
		var p Peer
		if p.Rank, err = atoiMin(f[1], 0); err != nil {
			return fmt.Errorf("info peer: %w", err)
		}
		if p.Device, err = atoiMin(f[3], 0); err != nil {
			return fmt.Errorf("info peer device: %w", err)
		}
		p.Bus, p.How = f[4], f[5]
		o.Peers = append(o.Peers, p)
	}
	return nil
}

func parseCheck(f []string) (Check, error) {
	var c Check
	if len(f) < 3 {
		return c, fmt.Errorf("check line has %d fields, want ALGO SIZE ok|bad ...", len(f))
	}
	var err error
	c.Algo = f[0]
	if c.Bytes, err = strconv.ParseInt(f[1], 10, 64); err != nil || c.Bytes <= 0 {
		return c, fmt.Errorf("check: bad size %q", f[1])
	}
	switch {
	case f[2] == "ok" && len(f) == 3:
		c.OK = true
	case f[2] == "bad" && len(f) == 6:
		if c.Index, err = strconv.ParseInt(f[3], 10, 64); err != nil || c.Index < 0 {
			return c, fmt.Errorf("check: bad index %q", f[3])
		}
		// Got may be nan or inf (an output never written).
		if c.Got, err = parseValue(f[4]); err != nil {
			return c, fmt.Errorf("check: bad value %q", f[4])
		}
		if c.Want, err = parseValue(f[5]); err != nil {
			return c, fmt.Errorf("check: bad value %q", f[5])
		}
	default:
		return c, fmt.Errorf("check: want \"ok\" or \"bad INDEX GOT WANT\", got %q", strings.Join(f[2:], " "))
	}
	return c, nil
}

func parseResult(f []string) (Result, error) {
	var r Result
	if len(f) != 4 {
		return r, fmt.Errorf("result line has %d fields, want 4 (algo size_bytes iters usec)", len(f))
	}
	var err error
	r.Algo = f[0]
	if r.Bytes, err = strconv.ParseInt(f[1], 10, 64); err != nil || r.Bytes <= 0 {
		return r, fmt.Errorf("result: bad size %q", f[1])
	}
	if r.Iters, err = atoiMin(f[2], 1); err != nil {
		return r, fmt.Errorf("result: iters: %w", err)
	}
	if r.USec, err = strconv.ParseFloat(f[3], 64); err != nil || r.USec < 0 || r.USec != r.USec {
		return r, fmt.Errorf("result: bad time %q", f[3])
	}
	return r, nil
}

func atoiMin(s string, min int) (int, error) {
	v, err := strconv.Atoi(s)
	if err != nil || v < min {
		return 0, fmt.Errorf("bad number %q", s)
	}
	return v, nil
}

// parseValue reads a printf %g value; C prints a NaN with its sign bit
// set (what a never-written 0xff output holds) as "-nan".
func parseValue(s string) (float64, error) {
	if strings.EqualFold(strings.TrimLeft(s, "+-"), "nan") {
		return math.NaN(), nil
	}
	return strconv.ParseFloat(s, 64)
}
