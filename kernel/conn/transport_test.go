package conn

import (
	"bytes"
	"encoding/binary"
	"errors"
	"net"
	"slices"
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

// pipeReader feeds stream to a coalescingConn's Read side through a pipe.
func pipeReader(t *testing.T, stream []byte) (*coalescingConn, net.Conn) {
	t.Helper()
	client, server := net.Pipe()
	t.Cleanup(func() { client.Close(); server.Close() })
	go func() { client.Write(stream) }()
	return newCoalescingConn(server), client
}

func TestCoalescingConnRefusesOversizedFrames(t *testing.T) {
	defer func(old uint64) { maxFrameBytes = old }(maxFrameBytes)
	maxFrameBytes = 1000
	greeting := bytes.Repeat([]byte{0xff}, greetingLen)
	ready := frame([]byte("\x05READY\x0bSocket-Type\x00\x00\x00\x06DEALER"), false, true)
	atLimit := frame(bytes.Repeat([]byte("a"), 1000), false, false)
	hugeHeader := make([]byte, 9)
	hugeHeader[0] = flagLong
	binary.BigEndian.PutUint64(hugeHeader[1:], 1<<50)
	for _, c := range []struct {
		name    string
		stream  []byte
		refused bool
	}{
		{"frames up to the limit pass", bytes.Join([][]byte{greeting, ready, atLimit}, nil), false},
		{"one byte over", bytes.Join([][]byte{greeting, ready, frame(bytes.Repeat([]byte("a"), 1001), false, false)}, nil), true},
		{"a header claiming 2^50 bytes", bytes.Join([][]byte{greeting, ready, hugeHeader}, nil), true},
		{"a greeting-sized body is not a header", bytes.Join([][]byte{greeting, frame(hugeHeader, false, false)}, nil), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			conn, _ := pipeReader(t, c.stream)
			got := make([]byte, 0, len(c.stream))
			buf := make([]byte, 7) // small reads: the header arrives in pieces
			var err error
			for len(got) < len(c.stream) {
				var n int
				n, err = conn.Read(buf)
				got = append(got, buf[:n]...)
				if err != nil {
					break
				}
			}
			if c.refused {
				if !errors.Is(err, ErrFrameTooLarge) {
					t.Fatalf("read %d of %d bytes, err %v; want ErrFrameTooLarge", len(got), len(c.stream), err)
				}
				// The connection is closed: nothing more comes.
				if n, err := conn.Read(buf); n != 0 || err == nil {
					t.Fatalf("read after refusal: %d, %v", n, err)
				}
				return
			}
			if err != nil || !bytes.Equal(got, c.stream) {
				t.Fatalf("read %d of %d bytes, err %v", len(got), len(c.stream), err)
			}
		})
	}
}

// FuzzFrameScanner feeds any byte stream, in pieces of any size, to the
// framing scanner: it never panics, and where the stream is cut does not
// change whether (or which) frame it refuses or where messages end.
func FuzzFrameScanner(f *testing.F) {
	greeting := bytes.Repeat([]byte{0xff}, greetingLen)
	f.Add(append(greeting, frame([]byte("hello"), false, false)...), uint8(3))
	f.Add(append(greeting, 0x02, 0, 0, 0, 1, 0, 0, 0, 0), uint8(1))
	f.Add(append(greeting, frame(bytes.Repeat([]byte("x"), 300), true, false)...), uint8(5))
	f.Fuzz(func(t *testing.T, stream []byte, piece uint8) {
		run := func(step int) (ends []int, refusedAt int) {
			s := frameScanner{greeting: greetingLen}
			refusedAt = -1
			for i := 0; i < len(stream); i += step {
				chunk := stream[i:min(i+step, len(stream))]
				base := i
				err := s.scan(chunk, refuseAbove(4096), func(at int) { ends = append(ends, base+at) })
				if err != nil {
					if !errors.Is(err, ErrFrameTooLarge) {
						t.Fatalf("error %v is not ErrFrameTooLarge", err)
					}
					return ends, i
				}
			}
			return ends, refusedAt
		}
		whole, wholeRefused := run(max(len(stream), 1))
		pieces, piecesRefused := run(int(piece%64) + 1)
		if (wholeRefused < 0) != (piecesRefused < 0) {
			t.Fatalf("refused whole: %v, in pieces: %v", wholeRefused >= 0, piecesRefused >= 0)
		}
		if wholeRefused < 0 && !slices.Equal(whole, pieces) {
			t.Fatalf("message ends %v whole, %v in pieces", whole, pieces)
		}
	})
}
