package nccl

import "github.com/commlab/commlab/probes/cuda"

// Checking the data: each rank's input written in a known pattern, and
// each output read back against what the collective should have made.

// fill writes every rank's input pattern.
func (x *opRun) fill() error {
	for r := range x.m.devs {
		in, off, _, _ := x.ptrs(r)
		elems := min(x.sendCnt, patternPeriod)
		if x.coll == UnpairedSend || x.coll == AllReduce || x.coll == Broadcast || x.coll == Reduce || x.coll == SendRecv {
			elems = min(x.param, patternPeriod)
		}
		block := patternBlock(x.t, r, x.mod, elems)
		if err := cuda.SetDevice(x.m.devs[r]); err != nil {
			return err
		}
		if err := in.Upload(off, block); err != nil {
			return err
		}
		total := x.sendCnt
		if x.coll == AllReduce || x.coll == Broadcast || x.coll == Reduce || x.coll == SendRecv {
			total = x.param
		}
		if err := in.Replicate(off, int64(len(block)), total*x.t.Size); err != nil {
			return err
		}
		// Device-to-device cudaMemcpy returns before the copy ends, on the
		// legacy stream, which the non-blocking NCCL streams do not wait for.
		if err := cuda.Synchronize(x.m.devs[r]); err != nil {
			return err
		}
	}
	return nil
}

// fullCheckBytes is the output size up to which every element is checked.
const fullCheckBytes = 64 << 20

// checkWindow is how many elements are checked at each end of a segment
// above fullCheckBytes.
const checkWindow = 1 << 16

// expected is what rank r's output element k should hold; ok is false
// where the collective defines no value (non-root ranks of reduce).
func (x *opRun) expected(r int, k int64) (float64, bool) {
	n := len(x.m.devs)
	if x.reduced == nil {
		x.reduced = make([]float64, patternPeriod)
		v := make([]float64, n)
		for j := range x.reduced {
			for s := range v {
				v[s] = value(s, int64(j), x.mod)
			}
			x.reduced[j] = reduceValues(x.op, v)
		}
	}
	all := func(i int64) float64 { return x.reduced[i%patternPeriod] }
	switch x.coll {
	case AllReduce:
		return all(k), true
	case Broadcast:
		return value(x.root, k, x.mod), true
	case Reduce:
		return all(k), r == x.root
	case AllGather:
		return value(int(k/x.param), k%x.param, x.mod), true
	case ReduceScatter:
		return all(int64(r)*x.param + k), true
	case AllToAll:
		return value(int(k/x.param), int64(r)*x.param+k%x.param, x.mod), true
	case SendRecv:
		return value((r-1+n)%n, k, x.mod), true
	}
	return 0, false
}

// verify counts output elements that differ from the expected values.
func (x *opRun) verify() (int64, error) {
	var wrong int64
	outCnt := x.recvCnt
	segs := int64(1)
	if x.coll == AllGather || x.coll == AllToAll {
		segs = int64(len(x.m.devs))
	}
	for r := range x.m.devs {
		if _, ok := x.expected(r, 0); !ok {
			continue
		}
		_, _, out, off := x.ptrs(r)
		var ranges [][2]int64
		if outCnt*x.t.Size <= fullCheckBytes {
			ranges = [][2]int64{{0, outCnt}}
		} else {
			seg := outCnt / segs
			for s := int64(0); s < segs; s++ {
				a, e := s*seg, (s+1)*seg
				w := min(int64(checkWindow), seg)
				ranges = append(ranges, [2]int64{a, a + w}, [2]int64{e - w, e})
			}
		}
		if err := cuda.SetDevice(x.m.devs[r]); err != nil {
			return 0, err
		}
		for _, rg := range ranges {
			host := make([]byte, (rg[1]-rg[0])*x.t.Size)
			if err := out.Download(off+rg[0]*x.t.Size, host); err != nil {
				return 0, err
			}
			for k := rg[0]; k < rg[1]; k++ {
				want, _ := x.expected(r, k)
				got := decode(x.t, host[(k-rg[0])*x.t.Size:])
				if !closeEnough(x.t, x.op, got, want) {
					wrong++
				}
			}
		}
	}
	return wrong, nil
}
