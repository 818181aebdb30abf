package costmodel

import (
	"fmt"
	"math"

	"github.com/commlab/commlab/units"
)

// Overlap models one step of compute and communication, in seconds.
//
// Serial is what a step costs when communication waits for compute (or
// the other way round): Compute + Comm. Overlapped is the ideal when all
// of it can run at once: max(Compute, Comm). Between the two, only a
// fraction of the communication can hide: the part issued while compute
// still has work queued. Step is Compute + Comm - Hidden, with
// Hidden = min(Fraction x Comm, Compute).
type Overlap struct {
	Compute float64 `unit:"s"`
	Comm    float64 `unit:"s"`
	// Fraction is the share of Comm that may run under compute, 0 to 1:
	// 1 when the collective is issued before the compute it can hide
	// under, 0 when something (a wait() on the compute stream, a device
	// synchronize) serialises it.
	Fraction float64
	// Serial, Overlapped and Step are the step times, in seconds.
	Serial     float64 `unit:"s"`
	Overlapped float64 `unit:"s"`
	Step       float64 `unit:"s"`
	// Hidden is the communication time under compute; Exposed the rest,
	// which the step pays for.
	Hidden  float64 `unit:"s"`
	Exposed float64 `unit:"s"`
	// Bound is "compute" when compute alone sets the step time with full
	// overlap, "comm" otherwise.
	Bound string
}

// StepOverlap returns the step time of compute and comm seconds when a
// fraction of comm can run under compute.
func StepOverlap(compute, comm, fraction float64) (Overlap, error) {
	for _, v := range []float64{compute, comm, fraction} {
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			return Overlap{}, fmt.Errorf("%w: compute %g s, comm %g s and fraction %g must be finite and not negative", ErrParams, compute, comm, fraction)
		}
	}
	if fraction > 1 {
		return Overlap{}, fmt.Errorf("%w: overlap fraction %g is more than 1", ErrParams, fraction)
	}
	o := Overlap{Compute: compute, Comm: comm, Fraction: fraction,
		Serial: compute + comm, Overlapped: math.Max(compute, comm)}
	o.Hidden = math.Min(fraction*comm, compute)
	o.Exposed = comm - o.Hidden
	o.Step = compute + o.Exposed
	o.Bound = "compute"
	if comm > compute {
		o.Bound = "comm"
	}
	return o, nil
}

// String reads "step 5 ms = 4 ms compute + 1 ms exposed comm (serial 6 ms,
// full overlap 4 ms)".
func (o Overlap) String() string {
	return fmt.Sprintf("step %s = %s compute + %s exposed comm (serial %s, full overlap %s)",
		Seconds(o.Step), Seconds(o.Compute), Seconds(o.Exposed), Seconds(o.Serial), Seconds(o.Overlapped))
}

// DDPBucketBytes is DistributedDataParallel's default bucket cap,
// bucket_cap_mb=25 read as 25 x 1024 x 1024 bytes, and DDPFirstBucketBytes
// the smaller cap of the first bucket it fills (the last layers' gradients,
// ready first in backward), dist._DEFAULT_FIRST_BUCKET_BYTES: both from
// pytorch/pytorch torch/csrc/distributed/c10d/reducer.hpp
// (kDefaultBucketBytesCap, kDefaultFirstBucketBytes), unchanged from v2.5.0
// to the recent main-branch versions read for chapter 5.
const (
	DDPBucketBytes      = 25 * 1024 * 1024
	DDPFirstBucketBytes = 1024 * 1024
)

// Bucketing is the gradient synchronisation of one backward pass: the
// gradients grouped into buckets, each bucket one all_reduce (or whatever
// Params names) issued when its last gradient is ready, the all_reduces one
// after another on the communication stream while backward goes on.
type Bucketing struct {
	// GradBytes is the total gradient size; BucketBytes the cap of a
	// bucket (the last bucket holds what is left); FirstBucketBytes the
	// cap of the first one (0: the same as BucketBytes).
	GradBytes        float64 `unit:"B"`
	BucketBytes      float64 `unit:"B"`
	FirstBucketBytes float64 `unit:"B"`
	// Buckets is the number of collectives; LatencyTerms the alpha terms
	// they pay together (Buckets x the steps of one collective).
	Buckets      int
	LatencyTerms int
	// LatencyTerm, BandwidthTerm and Comm are the summed terms and time of
	// all the collectives, in seconds.
	LatencyTerm   float64 `unit:"s"`
	BandwidthTerm float64 `unit:"s"`
	Comm          float64 `unit:"s"`
	// Backward is the compute time given; Step the time until the last
	// collective ends (at least Backward); Exposed = Step - Backward, the
	// communication the step waits for.
	Backward float64 `unit:"s"`
	Step     float64 `unit:"s"`
	Exposed  float64 `unit:"s"`
}

// Buckets models gradient bucketing: gradBytes of gradients produced evenly
// over backward seconds, cut into buckets of bucketBytes (the first of
// firstBytes; 0 means bucketBytes), each synchronised by the collective p
// describes (p.Bytes is replaced by the bucket's size) once it is full.
// The collectives run one after another; a bucket's starts when it is full
// and the one before it has ended. With backward 0 nothing overlaps and
// Step is the sum of the collectives.
func Buckets(p Params, gradBytes, bucketBytes, firstBytes, backward float64) (Bucketing, error) {
	if !(gradBytes > 0) || !(bucketBytes > 0) || firstBytes < 0 || backward < 0 || math.IsInf(gradBytes, 0) || math.IsNaN(backward) || math.IsInf(backward, 0) {
		return Bucketing{}, fmt.Errorf("%w: gradients %g B, bucket %g B, first bucket %g B and backward %g s must be positive and finite", ErrParams, gradBytes, bucketBytes, firstBytes, backward)
	}
	if firstBytes == 0 {
		firstBytes = bucketBytes
	}
	b := Bucketing{GradBytes: gradBytes, BucketBytes: bucketBytes, FirstBucketBytes: firstBytes, Backward: backward}
	if n := gradBytes / bucketBytes; n > 1e6 {
		return Bucketing{}, fmt.Errorf("%w: %g buckets of %g B is too many to model", ErrParams, math.Ceil(n), bucketBytes)
	}
	done, end := 0.0, 0.0
	for done < gradBytes {
		size := bucketBytes
		if b.Buckets == 0 {
			size = firstBytes
		}
		size = math.Min(size, gradBytes-done)
		done += size
		q := p
		q.Bytes = size
		c, err := Predict(q)
		if err != nil {
			return Bucketing{}, err
		}
		b.Buckets++
		b.LatencyTerms += c.Steps
		b.LatencyTerm += c.LatencyTerm
		b.BandwidthTerm += c.BandwidthTerm
		b.Comm += c.Time
		ready := backward * done / gradBytes
		end = math.Max(end, ready) + c.Time
	}
	b.Step = math.Max(end, backward)
	b.Exposed = b.Step - backward
	return b, nil
}

// String reads "1 GB in 39 buckets of 25 MiB: 546 latency terms, comm
// 72.73 ms, exposed 1.859 ms after 100 ms of backward"; with a first bucket
// of its own, the cut is spelt out: "1 GB in 40 buckets (1 MiB + 38 x 25 MiB +
// 2.674 MiB): ...".
func (b Bucketing) String() string {
	noun := "buckets"
	if b.Buckets == 1 {
		noun = "bucket"
	}
	cut := "of " + sizeText(b.BucketBytes)
	if b.FirstBucketBytes > 0 && b.FirstBucketBytes != b.BucketBytes && b.Buckets > 1 {
		first := math.Min(b.FirstBucketBytes, b.GradBytes)
		full := int64((b.GradBytes - first) / b.BucketBytes)
		cut = "(" + sizeText(first)
		if full > 0 {
			cut += fmt.Sprintf(" + %s x %s", units.Count(full), sizeText(b.BucketBytes))
		}
		if rest := b.GradBytes - first - float64(full)*b.BucketBytes; rest > 0 {
			cut += " + " + sizeText(rest)
		}
		cut += ")"
	}
	return fmt.Sprintf("%s in %s %s %s: %s latency terms (%s), comm %s, exposed %s after %s of backward",
		sizeText(b.GradBytes), units.Count(int64(b.Buckets)), noun, cut, units.Count(int64(b.LatencyTerms)), Seconds(b.LatencyTerm),
		Seconds(b.Comm), Seconds(b.Exposed), Seconds(b.Backward))
}

// BucketSweep runs Buckets for each bucket size, DDP's first-bucket cap
// left out (every bucket the same size), so the rows compare like with like.
func BucketSweep(p Params, gradBytes float64, bucketSizes []float64, backward float64) ([]Bucketing, error) {
	out := make([]Bucketing, 0, len(bucketSizes))
	for _, s := range bucketSizes {
		b, err := Buckets(p, gradBytes, s, 0, backward)
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}
