package nccl

import (
	"errors"
	"fmt"

	"github.com/commlab/commlab/probes"
	"github.com/commlab/commlab/probes/cuda"
	"github.com/commlab/commlab/units"
)

// bufs are one rank's device buffers for a collective.
type bufs struct{ send, recv cuda.Buffer }

// sweep measures one collective at every size and mode.
func (m *machine) sweep(coll string, t DType, op int, cfg Config, tick func(string)) ([]probes.Sample, error) {
	n := len(m.devs)
	var maxSend, maxRecv int64
	for _, size := range cfg.Sizes {
		_, s, r, _ := Counts(coll, size, t.Size, n)
		maxSend, maxRecv = max(maxSend, s*t.Size), max(maxRecv, r*t.Size)
	}
	b := make([]bufs, n)
	defer func() {
		if !m.drained {
			return // cudaFree would wait for the hung work
		}
		for _, x := range b {
			x.send.Free()
			x.recv.Free()
		}
	}()
	for r, d := range m.devs {
		var err error
		if b[r].send, err = cuda.Malloc(d, maxSend); err != nil {
			return nil, err
		}
		if b[r].recv, err = cuda.Malloc(d, max(maxSend, maxRecv)); err != nil {
			return nil, err
		}
	}
	mod := modulus(t, op)
	var out []probes.Sample
	for _, size := range cfg.Sizes {
		param, sendCnt, recvCnt, reported := Counts(coll, size, t.Size, n)
		for _, mode := range cfg.Modes {
			inPlace := mode == "in"
			what := fmt.Sprintf("%s %s %s", coll, units.FormatSize(reported), mode)
			if param == 0 || (inPlace && (coll == AllToAll || coll == SendRecv || coll == UnpairedSend || coll == StalledStream)) {
				tick(what + " (skipped)")
				continue
			}
			x := &opRun{m: m, coll: coll, t: t, op: op, root: cfg.Root, param: param,
				sendCnt: sendCnt, recvCnt: recvCnt, inPlace: inPlace, b: b, mod: mod, beat: cfg.beat}
			s, err := x.measure(cfg)
			s.Bytes = reported
			if s.MedianUS > 0 {
				s.AlgBW = float64(reported) / (s.MedianUS * 1e3)
				s.BusBW = s.AlgBW * BusFactor(coll, n)
			}
			var te *TimeoutError
			if errors.As(err, &te) {
				te.Op, te.Bytes, te.InPlace = coll, reported, inPlace
				// Abort before the deferred cudaFree, which would wait
				// for the hung work forever.
				m.abortAfterTimeout(te)
				return out, te
			}
			if err != nil {
				return out, fmt.Errorf("%s %d bytes %s-place: %w", coll, reported, mode, err)
			}
			out = append(out, s)
			tick(what)
		}
	}
	return out, nil
}
