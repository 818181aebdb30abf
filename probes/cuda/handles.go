package cuda

import (
	"fmt"
	"unsafe"

	"github.com/commlab/commlab/probes"
)

// The exported handles below let probes/nccl allocate buffers, make streams
// and time with events without loading the CUDA runtime a second time.
// The caller must hold its OS thread (runtime.LockOSThread) for as long as
// it uses them, because CUDA's current device belongs to the thread.

// Init loads the runtime and returns the device count; no runtime or no
// device gives an error wrapping probes.ErrUnavailable.
func Init() (int, error) {
	n, err := devicesReady()
	if err != nil {
		return 0, err
	}
	if n == 0 {
		return 0, fmt.Errorf("cuda: %w: no CUDA device", probes.ErrUnavailable)
	}
	return n, nil
}

// SetDevice makes d the calling thread's current device.
func SetDevice(d int) error { return setDevice(d) }

// Synchronize waits for all work on device d.
func Synchronize(d int) error { return onDevice(d, deviceSynchronize) }

// Buffer is device memory on one GPU.
type Buffer struct {
	p   unsafe.Pointer
	n   int64
	dev int
}

// Malloc allocates n bytes on device dev.
func Malloc(dev int, n int64) (Buffer, error) {
	if err := setDevice(dev); err != nil {
		return Buffer{}, err
	}
	p, err := devMalloc(max(n, 1))
	return Buffer{p: p, n: n, dev: dev}, err
}

// Free releases the buffer.
func (b Buffer) Free() error {
	if b.p == nil {
		return nil
	}
	return onDevice(b.dev, func() error { return devFree(b.p) })
}

// Len is the buffer's size in bytes.
func (b Buffer) Len() int64 { return b.n }

// At is the device address off bytes into the buffer.
func (b Buffer) At(off int64) unsafe.Pointer { return unsafe.Add(b.p, off) }

// Upload copies src to the buffer at off.
func (b Buffer) Upload(off int64, src []byte) error {
	if len(src) == 0 {
		return nil
	}
	if off < 0 || off+int64(len(src)) > b.n {
		return fmt.Errorf("cuda: upload of %d bytes at %d outside a %d-byte buffer", len(src), off, b.n)
	}
	return memcpySync(b.At(off), unsafe.Pointer(&src[0]), int64(len(src)), memcpyHostToDevice)
}

// Download copies len(dst) bytes from the buffer at off.
func (b Buffer) Download(off int64, dst []byte) error {
	if len(dst) == 0 {
		return nil
	}
	if off < 0 || off+int64(len(dst)) > b.n {
		return fmt.Errorf("cuda: download of %d bytes at %d outside a %d-byte buffer", len(dst), off, b.n)
	}
	return memcpySync(unsafe.Pointer(&dst[0]), b.At(off), int64(len(dst)), memcpyDeviceToHost)
}

// Replicate fills [off, off+n) with copies of its first `period` bytes,
// doubling on the device so large buffers fill at copy speed.
func (b Buffer) Replicate(off, period, n int64) error {
	if period <= 0 || off < 0 || off+n > b.n {
		return fmt.Errorf("cuda: replicate [%d,+%d) by %d outside a %d-byte buffer", off, n, period, b.n)
	}
	for have := period; have < n; {
		k := min(have, n-have)
		if err := memcpySync(b.At(off+have), b.At(off), k, memcpyDeviceToDevice); err != nil {
			return err
		}
		have += k
	}
	return nil
}

// Stream is a non-blocking CUDA stream on one device.
type Stream struct {
	s   stream
	dev int
}

// NewStream creates a stream on device dev.
func NewStream(dev int) (Stream, error) {
	s := Stream{dev: dev}
	err := onDevice(dev, func() (err error) { s.s, err = newStream(); return err })
	return s, err
}

// Handle is the cudaStream_t, for other libraries' calls.
func (s Stream) Handle() unsafe.Pointer { return unsafe.Pointer(s.s) }

// Synchronize waits for the stream's work.
func (s Stream) Synchronize() error { return streamSynchronize(s.s) }

// Destroy releases the stream.
func (s Stream) Destroy() error {
	if s.s == nil {
		return nil
	}
	return onDevice(s.dev, func() error { return destroyStream(s.s) })
}

// Event is a CUDA event used for timing.
type Event struct {
	e   event
	dev int
}

// NewEvent creates an event on device dev.
func NewEvent(dev int) (Event, error) {
	e := Event{dev: dev}
	err := onDevice(dev, func() (err error) { e.e, err = newEvent(); return err })
	return e, err
}

// Record enqueues the event on s.
func (e Event) Record(s Stream) error { return eventRecord(e.e, s.s) }

// Done reports whether the work before the event has finished, without
// blocking, so callers can poll against a deadline.
func (e Event) Done() (bool, error) {
	rc := eventQuery(e.e)
	if rc == cudaErrorNotReady {
		return false, nil
	}
	return rc == 0, check("cudaEventQuery", rc)
}

// ElapsedUS is the time from e to end in microseconds.
func (e Event) ElapsedUS(end Event) (float64, error) { return elapsedUS(e.e, end.e) }

// Destroy releases the event.
func (e Event) Destroy() error {
	if e.e == nil {
		return nil
	}
	return destroyEvent(e.e)
}

// LastError returns and clears the runtime's last error.
func LastError() error { return lastError() }
