package conn

import (
	"bufio"
	"context"
	"encoding/binary"
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

// coalescingConn buffers reads, and holds writes until a ZMTP message or
// the greeting is complete. It tracks the frame structure of the bytes
// written, not the boundaries of Write calls.
type coalescingConn struct {
	net.Conn
	r *bufio.Reader

	mu       sync.Mutex
	held     []byte
	greeting int     // greeting bytes still to come
	hdr      [9]byte // the frame header being assembled
	hdrLen   int     // bytes of hdr filled
	bodyLeft uint64  // bytes of the current body still to come
	inBody   bool
	more     bool // the current frame is not the last of its message
	boundary int  // len(held) at the last completed message
}

func newCoalescingConn(c net.Conn) *coalescingConn {
	return &coalescingConn{Conn: c, r: bufio.NewReaderSize(c, 1<<16), greeting: greetingLen}
}

func (c *coalescingConn) Read(p []byte) (int, error) { return c.r.Read(p) }

func (c *coalescingConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.held = append(c.held, p...)
	c.scan(p, len(c.held)-len(p))
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

// scan advances the frame parser over p, which starts at offset base in
// held, and records in boundary where the last complete message ends.
func (c *coalescingConn) scan(p []byte, base int) {
	for i := 0; i < len(p); {
		switch {
		case c.greeting > 0:
			n := min(c.greeting, len(p)-i)
			c.greeting -= n
			i += n
			if c.greeting == 0 {
				c.boundary = base + i
			}
		case c.inBody:
			n := min(c.bodyLeft, uint64(len(p)-i))
			c.bodyLeft -= n
			i += int(n)
			if c.bodyLeft == 0 {
				c.endFrame(base + i)
			}
		default:
			c.hdr[c.hdrLen] = p[i]
			c.hdrLen++
			i++
			need := 2
			if c.hdr[0]&flagLong != 0 {
				need = 9
			}
			if c.hdrLen < need {
				continue
			}
			c.more = c.hdr[0]&flagMore != 0
			if need == 2 {
				c.bodyLeft = uint64(c.hdr[1])
			} else {
				c.bodyLeft = binary.BigEndian.Uint64(c.hdr[1:9])
			}
			c.hdrLen = 0
			c.inBody = true
			if c.bodyLeft == 0 {
				c.endFrame(base + i)
			}
		}
	}
}

func (c *coalescingConn) endFrame(at int) {
	c.inBody = false
	if !c.more {
		c.boundary = at
	}
}
