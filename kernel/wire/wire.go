package wire

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"time"
)

// ProtocolVersion is the Jupyter messaging protocol version this package speaks.
const ProtocolVersion = "5.3"

// Delimiter separates the routing identities from the signed message frames.
const Delimiter = "<IDS|MSG>"

// DateLayout is the header date format: RFC 3339 in UTC with microseconds,
// as jupyter_client writes it.
const DateLayout = "2006-01-02T15:04:05.000000Z07:00"

var (
	// ErrMalformed reports frames that are not a Jupyter message; the
	// wrapping error says what is wrong.
	ErrMalformed = errors.New("wire: malformed message")
	// ErrBadSignature reports a missing or wrong HMAC signature.
	ErrBadSignature = errors.New("wire: bad signature")
	// ErrUnsupportedScheme reports a signature_scheme other than hmac-sha256.
	ErrUnsupportedScheme = errors.New("wire: unsupported signature scheme")
)

// Header is a message header.
type Header struct {
	MsgID    string `json:"msg_id"`
	Session  string `json:"session"`
	Username string `json:"username"`
	Date     string `json:"date"`
	MsgType  string `json:"msg_type"`
	Version  string `json:"version"`
}

// Message is one Jupyter message. The JSON parts other than the header are
// kept as raw bytes so that they pass through unchanged.
type Message struct {
	// Identities is the routing prefix before the delimiter.
	Identities [][]byte
	Header     Header
	// ParentHeader is echoed verbatim; nil encodes as {}.
	ParentHeader json.RawMessage
	// Metadata is the metadata dict; nil encodes as {}.
	Metadata json.RawMessage
	// Content is the content dict; nil encodes as {}.
	Content json.RawMessage
	// Buffers are the raw binary frames after content.
	Buffers [][]byte
	// RawHeader is set by Decode to the header frame exactly as received, so
	// a reply's parent_header carries fields this package does not know.
	RawHeader json.RawMessage
}

var emptyDict = []byte("{}")

// NewHeader returns a header with a fresh UUID msg_id and the current time.
func NewHeader(session, username, msgType string) Header {
	return Header{
		MsgID:    newUUID(),
		Session:  session,
		Username: username,
		Date:     time.Now().UTC().Format(DateLayout),
		MsgType:  msgType,
		Version:  ProtocolVersion,
	}
}

// newUUID returns a random (version 4) UUID. The standard library has no
// UUID type and this package stays free of outside modules.
func newUUID() string {
	var u [16]byte
	// Since Go 1.24 crypto/rand.Read never returns an error.
	_, _ = rand.Read(u[:])
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	var b [36]byte
	hex.Encode(b[0:8], u[0:4])
	b[8] = '-'
	hex.Encode(b[9:13], u[4:6])
	b[13] = '-'
	hex.Encode(b[14:18], u[6:8])
	b[18] = '-'
	hex.Encode(b[19:23], u[8:10])
	b[23] = '-'
	hex.Encode(b[24:], u[10:])
	return string(b[:])
}

// Signer signs outgoing and verifies incoming messages with one key.
// A Signer is safe for concurrent use.
type Signer struct {
	key []byte
}

// NewSigner returns a Signer for the connection file's signature_scheme and
// key. An empty key disables signing: Encode writes an empty signature and
// Decode accepts any. An empty scheme means hmac-sha256, jupyter_client's
// default.
func NewSigner(scheme string, key []byte) (*Signer, error) {
	switch scheme {
	case "hmac-sha256", "":
	default:
		if len(key) > 0 {
			return nil, fmt.Errorf("%w: %q", ErrUnsupportedScheme, scheme)
		}
	}
	return &Signer{key: bytes.Clone(key)}, nil
}

// Signs reports whether the Signer signs and checks messages (a key is set).
func (s *Signer) Signs() bool { return len(s.key) > 0 }

func (s *Signer) mac() hash.Hash { return hmac.New(sha256.New, s.key) }

// sign returns the hex signature of the four JSON frames, or nil without a key.
func (s *Signer) sign(parts [4][]byte) []byte {
	if !s.Signs() {
		return nil
	}
	m := s.mac()
	for _, p := range parts {
		m.Write(p)
	}
	sum := m.Sum(nil)
	out := make([]byte, hex.EncodedLen(len(sum)))
	hex.Encode(out, sum)
	return out
}

// Encode returns m's frames: identities, delimiter, signature, header,
// parent_header, metadata, content and buffers.
func (s *Signer) Encode(m Message) ([][]byte, error) {
	header, err := json.Marshal(m.Header)
	if err != nil {
		return nil, fmt.Errorf("wire: encode header: %w", err)
	}
	var parts [4][]byte
	parts[0] = header
	for i, p := range []struct {
		name string
		raw  json.RawMessage
	}{{"parent_header", m.ParentHeader}, {"metadata", m.Metadata}, {"content", m.Content}} {
		if len(p.raw) == 0 {
			parts[i+1] = emptyDict
			continue
		}
		if !json.Valid(p.raw) {
			return nil, fmt.Errorf("%w: %s of %s is not valid JSON", ErrMalformed, p.name, m.Header.MsgType)
		}
		parts[i+1] = p.raw
	}
	frames := make([][]byte, 0, len(m.Identities)+6+len(m.Buffers))
	frames = append(frames, m.Identities...)
	frames = append(frames, []byte(Delimiter), s.sign(parts))
	frames = append(frames, parts[:]...)
	frames = append(frames, m.Buffers...)
	return frames, nil
}

// Decode parses frames into a Message and, when a key is set, verifies the
// signature in constant time. The Message refers to the frames' memory.
func (s *Signer) Decode(frames [][]byte) (Message, error) {
	var m Message
	delim := -1
	for i, f := range frames {
		if string(f) == Delimiter {
			delim = i
			break
		}
	}
	if delim < 0 {
		return m, fmt.Errorf("%w: no %s delimiter in %d frames", ErrMalformed, Delimiter, len(frames))
	}
	rest := frames[delim+1:]
	if len(rest) < 5 {
		return m, fmt.Errorf("%w: %d frames after the delimiter, want at least 5", ErrMalformed, len(rest))
	}
	sig := rest[0]
	var parts [4][]byte
	copy(parts[:], rest[1:5])
	if s.Signs() {
		if len(sig) == 0 {
			return m, fmt.Errorf("%w: message is unsigned", ErrBadSignature)
		}
		got := make([]byte, hex.DecodedLen(len(sig)))
		if _, err := hex.Decode(got, sig); err != nil {
			return m, fmt.Errorf("%w: signature is not hex", ErrBadSignature)
		}
		mac := s.mac()
		for _, p := range parts {
			mac.Write(p)
		}
		if !hmac.Equal(got, mac.Sum(nil)) {
			return m, fmt.Errorf("%w: signature does not match", ErrBadSignature)
		}
	}
	if err := json.Unmarshal(parts[0], &m.Header); err != nil {
		return Message{}, fmt.Errorf("%w: header: %w", ErrMalformed, err)
	}
	if m.Header.MsgType == "" {
		return Message{}, fmt.Errorf("%w: header has no msg_type", ErrMalformed)
	}
	for i, name := range []string{"parent_header", "metadata", "content"} {
		if !isObject(parts[i+1]) {
			return Message{}, fmt.Errorf("%w: %s of %s is not a JSON object", ErrMalformed, name, m.Header.MsgType)
		}
	}
	if delim > 0 {
		m.Identities = frames[:delim:delim]
	}
	m.RawHeader = parts[0]
	m.ParentHeader = parts[1]
	m.Metadata = parts[2]
	m.Content = parts[3]
	if len(rest) > 5 {
		m.Buffers = rest[5:]
	}
	return m, nil
}

// isObject reports whether b is one valid JSON object.
func isObject(b []byte) bool {
	t := bytes.TrimLeft(b, " \t\r\n")
	return len(t) > 0 && t[0] == '{' && json.Valid(b)
}

// Reply returns a message answering req: a fresh header with req's session
// and username, req's header as parent_header, req's identities for routing,
// and content marshalled to JSON.
func Reply(req Message, msgType string, content any) (Message, error) {
	body := emptyDict
	if content != nil {
		var err error
		if body, err = json.Marshal(content); err != nil {
			return Message{}, fmt.Errorf("wire: encode %s content: %w", msgType, err)
		}
		if string(body) == "null" { // a nil map or pointer
			body = emptyDict
		}
		if !isObject(body) {
			return Message{}, fmt.Errorf("%w: %s content is not a JSON object", ErrMalformed, msgType)
		}
	}
	parent := req.RawHeader
	if len(parent) == 0 {
		var err error
		if parent, err = json.Marshal(req.Header); err != nil {
			return Message{}, fmt.Errorf("wire: encode parent header: %w", err)
		}
	}
	return Message{
		Identities:   req.Identities,
		Header:       NewHeader(req.Header.Session, req.Header.Username, msgType),
		ParentHeader: parent,
		Content:      body,
	}, nil
}
