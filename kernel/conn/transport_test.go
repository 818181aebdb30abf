package conn

import (
	"bytes"
	"encoding/binary"
	"net"
	"testing"
)

// recordingConn records each Write that reaches the network.
type recordingConn struct {
	net.Conn
	writes [][]byte
}

func (r *recordingConn) Write(p []byte) (int, error) {
	r.writes = append(r.writes, bytes.Clone(p))
	return len(p), nil
}

// frame encodes one ZMTP frame (RFC 23): flags, short or long size, body.
func frame(body []byte, more, command bool) []byte {
	var flags byte
	if more {
		flags |= flagMore
	}
	if command {
		flags |= 0x04
	}
	if len(body) > 255 {
		hdr := make([]byte, 9)
		hdr[0] = flags | flagLong
		binary.BigEndian.PutUint64(hdr[1:], uint64(len(body)))
		return append(hdr, body...)
	}
	return append([]byte{flags, byte(len(body))}, body...)
}

func TestCoalescingConnFlushesWholeMessages(t *testing.T) {
	greeting := bytes.Repeat([]byte{0xff}, greetingLen)
	ready := frame([]byte("\x05READY\x0bSocket-Type\x00\x00\x00\x06ROUTER"), false, true)
	long := bytes.Repeat([]byte("x"), 300)
	msg := bytes.Join([][]byte{
		frame([]byte("client-id"), true, false),
		frame([]byte("<IDS|MSG>"), true, false),
		frame(nil, true, false), // empty signature
		frame(long, true, false),
		frame([]byte("{}"), false, false),
	}, nil)
	single := frame([]byte("ping"), false, false)
	stream := bytes.Join([][]byte{greeting, ready, msg, single}, nil)
	want := [][]byte{greeting, ready, msg, single}

	for _, chunk := range []int{1, 2, 3, 7, 64, 65, 100, len(stream)} {
		rec := &recordingConn{}
		c := newCoalescingConn(rec)
		for i := 0; i < len(stream); i += chunk {
			end := min(i+chunk, len(stream))
			if n, err := c.Write(stream[i:end]); err != nil || n != end-i {
				t.Fatalf("chunk %d: Write = %d, %v", chunk, n, err)
			}
		}
		// Writes that end mid-message may merge two messages into one
		// network write; what matters is that nothing is held back at a
		// message end and every write ends at a message boundary.
		joined := bytes.Join(rec.writes, nil)
		if !bytes.Equal(joined, stream) {
			t.Fatalf("chunk %d: bytes changed or held back: wrote %d of %d", chunk, len(joined), len(stream))
		}
		ends := map[int]bool{}
		at := 0
		for _, w := range want {
			at += len(w)
			ends[at] = true
		}
		at = 0
		for _, w := range rec.writes {
			at += len(w)
			if !ends[at] {
				t.Fatalf("chunk %d: a write ends at byte %d, inside a message", chunk, at)
			}
		}
		if chunk == 1 && len(rec.writes) != len(want) {
			t.Fatalf("byte-by-byte writes: %d network writes, want %d", len(rec.writes), len(want))
		}
	}
}

func TestCoalescingConnWritesThroughLargeBodies(t *testing.T) {
	rec := &recordingConn{}
	c := newCoalescingConn(rec)
	c.Write(bytes.Repeat([]byte{0}, greetingLen))
	big := frame(bytes.Repeat([]byte("b"), 3*flushAbove), false, false)
	for i := 0; i < len(big); i += 4096 {
		c.Write(big[i:min(i+4096, len(big))])
	}
	if got := len(bytes.Join(rec.writes, nil)); got != greetingLen+len(big) {
		t.Fatalf("wrote %d bytes, want %d", got, greetingLen+len(big))
	}
	if len(c.held) != 0 || cap(c.held) > 2*flushAbove {
		t.Fatalf("holds %d bytes (cap %d) after a large message", len(c.held), cap(c.held))
	}
}
