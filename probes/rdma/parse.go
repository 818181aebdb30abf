package rdma

import (
	"bufio"
	"fmt"
	"strconv"
	"strings"

	"github.com/commlab/commlab/probes"
)

// Op is the Sample.Op of a timed RDMA WRITE.
const Op = "rdma_write"

// Output is what one side of rdma_write printed, parsed.
type Output struct {
	// Info holds the "info KEY VALUE" lines: device, port, link_layer,
	// active_mtu, gid_index, memory, listening, received_ok.
	Info map[string]string
	// Sent and Recv are the connection info the side sent and received
	// over the out-of-band channel, as printed ("qpn=... psn=... ...").
	Sent, Recv string
	// Results are the client's timed sizes, in order.
	Results []Result
	// Done is true when the program printed its final "done".
	Done bool
}

// Result is one "result SIZE_BYTES ITERS USEC GBPS" line: Iters writes of
// Bytes took USec microseconds in all; GBps is GB/s (1e9 bytes/s).
type Result struct {
	Bytes int64
	Iters int
	USec  float64
	GBps  float64
}

// Parse reads rdma_write's stdout. Lines it does not know (comments, a
// launcher's chatter) are skipped; a malformed result line is an error.
func Parse(out string) (*Output, error) {
	o := &Output{Info: map[string]string{}}
	sc := bufio.NewScanner(strings.NewReader(out))
	for n := 1; sc.Scan(); n++ {
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		switch {
		case f[0] == "info" && len(f) >= 3:
			o.Info[f[1]] = strings.Join(f[2:], " ")
		case f[0] == "oob" && len(f) >= 3 && f[1] == "sent":
			o.Sent = strings.Join(f[2:], " ")
		case f[0] == "oob" && len(f) >= 3 && f[1] == "recv":
			o.Recv = strings.Join(f[2:], " ")
		case f[0] == "result":
			r, err := parseResult(f[1:])
			if err != nil {
				return o, fmt.Errorf("rdma: line %d: %w", n, err)
			}
			o.Results = append(o.Results, r)
		case f[0] == "done" && len(f) == 1:
			o.Done = true
		}
	}
	return o, sc.Err()
}

func parseResult(f []string) (Result, error) {
	if len(f) != 4 {
		return Result{}, fmt.Errorf("result line has %d fields, want 4 (size_bytes iters usec gbps)", len(f))
	}
	var r Result
	var err error
	if r.Bytes, err = strconv.ParseInt(f[0], 10, 64); err != nil || r.Bytes <= 0 {
		return r, fmt.Errorf("bad size %q", f[0])
	}
	if r.Iters, err = strconv.Atoi(f[1]); err != nil || r.Iters <= 0 {
		return r, fmt.Errorf("bad iters %q", f[1])
	}
	if r.USec, err = strconv.ParseFloat(f[2], 64); err != nil || r.USec < 0 {
		return r, fmt.Errorf("bad usec %q", f[2])
	}
	if r.GBps, err = strconv.ParseFloat(f[3], 64); err != nil || r.GBps < 0 {
		return r, fmt.Errorf("bad gbps %q", f[3])
	}
	return r, nil
}

// Sample turns a result into a probes.Sample: the time of one write (all
// iters took USec), and its bandwidth in GB/s. src and dst are the device
// indices of the client's and the server's buffers, -1 for host memory.
func (r Result) Sample(src, dst int, label string) probes.Sample {
	s := probes.Sample{Op: Op, Bytes: r.Bytes, Iters: r.Iters, Src: src, Dst: dst, Ranks: 2, Wrong: -1, Label: label}
	us := r.USec / float64(r.Iters)
	s.MedianUS, s.MinUS, s.MaxUS = us, us, us
	if us > 0 {
		s.AlgBW = float64(r.Bytes) / (us * 1e3)
	}
	return s
}
