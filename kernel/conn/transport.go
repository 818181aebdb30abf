package conn

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"sync"

	"github.com/go-zeromq/zmq4"
	"github.com/go-zeromq/zmq4/transport"
)

// zmq4 writes each ZMTP frame as two syscalls (header, body) when a ROUTER
// sends, and reads each frame with two unbuffered reads, so one 7-frame
// Jupyter message costs ~14 writes and ~14 reads. The transports registered
// here wrap every connection in a coalescingConn: reads go through a buffer
// and writes are held until a whole message (its last frame) is complete,
// then leave in one write. On the wire nothing changes.
const (
	schemeTCP = "commlab-tcp"
	schemeIPC = "commlab-ipc"
)

var registerOnce sync.Once

func registerTransports() {
	registerOnce.Do(func() {
		// Registration fails only for a duplicate name, and these are ours.
		_ = zmq4.RegisterTransport(schemeTCP, coalescingTransport{transport.New("tcp")})
		_ = zmq4.RegisterTransport(schemeIPC, coalescingTransport{transport.New("unix")})
	})
}

type coalescingTransport struct{ transport.Transport }

func (t coalescingTransport) Dial(ctx context.Context, d transport.Dialer, addr string) (net.Conn, error) {
	c, err := t.Transport.Dial(ctx, d, addr)
	if err != nil {
		return nil, err
	}
	return newCoalescingConn(c), nil
}

func (t coalescingTransport) Listen(ctx context.Context, addr string) (net.Listener, error) {
	l, err := t.Transport.Listen(ctx, addr)
	if err != nil {
		return nil, err
	}
	return coalescingListener{l}, nil
}

type coalescingListener struct{ net.Listener }

func (l coalescingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return newCoalescingConn(c), nil
}

// ZMTP 3 framing (https://rfc.zeromq.org/spec/23/): a 64-byte greeting, then
// frames of flags, a 1- or 8-byte size and a body.
const (
	greetingLen = 64
	flagMore    = 0x01
	flagLong    = 0x02
	// flushAbove bounds the held bytes: a large body is written through.
	flushAbove = 1 << 16
)

// maxFrameBytes bounds the size a peer may announce for one incoming frame.
// zmq4 allocates whatever size a frame header announces before reading the
// body, so a header claiming 2^60 bytes would end the kernel; Read refuses
// such a frame and drops that connection instead. 1 GiB is far above any
// Jupyter message (widget buffers included) and still allocatable.
var maxFrameBytes uint64 = 1 << 30

// ErrFrameTooLarge is the error a connection's Read returns, and the
// connection is closed, when the peer announces a frame above the limit.
var ErrFrameTooLarge = errors.New("conn: incoming ZMTP frame larger than the limit")

// coalescingConn buffers reads, and holds writes until a ZMTP message or
// the greeting is complete. It tracks the frame structure of the bytes
// written, not the boundaries of Write calls, and of the bytes read, to
// refuse oversized frames before zmq4 allocates them.
type coalescingConn struct {
	net.Conn
	r       *bufio.Reader
	in      frameScanner // the bytes read; only Read touches it
	refused error        // set once a frame was refused; every later Read returns it

	mu       sync.Mutex
	held     []byte
	out      frameScanner // the bytes written
	boundary int          // len(held) at the last completed message
}

func newCoalescingConn(c net.Conn) *coalescingConn {
	return &coalescingConn{Conn: c, r: bufio.NewReaderSize(c, 1<<16),
		in: frameScanner{greeting: greetingLen}, out: frameScanner{greeting: greetingLen}}
}

func (c *coalescingConn) Read(p []byte) (int, error) {
	if c.refused != nil {
		return 0, c.refused
	}
	n, err := c.r.Read(p)
	if n > 0 {
		if e := c.in.scan(p[:n], refuseAbove(maxFrameBytes), nil); e != nil {
			c.refused = e
			c.Conn.Close()
			return 0, e
		}
	}
	return n, err
}

func refuseAbove(limit uint64) func(uint64) error {
	return func(size uint64) error {
		if size > limit {
			return fmt.Errorf("%w: %d bytes announced, %d allowed", ErrFrameTooLarge, size, limit)
		}
		return nil
	}
}

func (c *coalescingConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.held = append(c.held, p...)
	base := len(c.held) - len(p)
	c.out.scan(p, nil, func(at int) { c.boundary = base + at })
	var flush int
	switch {
	case len(c.held) > flushAbove:
		flush = len(c.held)
	default:
		flush = c.boundary
	}
	if flush == 0 {
		return len(p), nil
	}
	_, err := c.Conn.Write(c.held[:flush])
	n := copy(c.held, c.held[flush:])
	c.held = c.held[:n]
	c.boundary = 0
	if err != nil {
		return 0, err
	}
	return len(p), nil
}

// frameScanner follows ZMTP 3 framing over a byte stream that arrives in
// pieces of any length.
type frameScanner struct {
	greeting int     // greeting bytes still to come
	hdr      [9]byte // the frame header being assembled
	hdrLen   int     // bytes of hdr filled
	bodyLeft uint64  // bytes of the current body still to come
	inBody   bool
	more     bool // the current frame is not the last of its message
}

// scan advances over p. header, when set, sees each frame's announced size
// and may refuse it (scan then stops with that error); messageEnd, when
// set, gets the offset in p just past the greeting and past each completed
// message.
func (s *frameScanner) scan(p []byte, header func(size uint64) error, messageEnd func(at int)) error {
	end := func(at int) {
		s.inBody = false
		if !s.more && messageEnd != nil {
			messageEnd(at)
		}
	}
	for i := 0; i < len(p); {
		switch {
		case s.greeting > 0:
			n := min(s.greeting, len(p)-i)
			s.greeting -= n
			i += n
			if s.greeting == 0 && messageEnd != nil {
				messageEnd(i)
			}
		case s.inBody:
			n := min(s.bodyLeft, uint64(len(p)-i))
			s.bodyLeft -= n
			i += int(n)
			if s.bodyLeft == 0 {
				end(i)
			}
		default:
			s.hdr[s.hdrLen] = p[i]
			s.hdrLen++
			i++
			need := 2
			if s.hdr[0]&flagLong != 0 {
				need = 9
			}
			if s.hdrLen < need {
				continue
			}
			s.more = s.hdr[0]&flagMore != 0
			if need == 2 {
				s.bodyLeft = uint64(s.hdr[1])
			} else {
				s.bodyLeft = binary.BigEndian.Uint64(s.hdr[1:9])
			}
			s.hdrLen = 0
			if header != nil {
				if err := header(s.bodyLeft); err != nil {
					return err
				}
			}
			s.inBody = true
			if s.bodyLeft == 0 {
				end(i)
			}
		}
	}
	return nil
}
