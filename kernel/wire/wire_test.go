package wire

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/commlab/commlab/internal/golden"
)

// fixedHeader is a header with a fixed id and date so golden frames are stable.
func fixedHeader(msgType string) Header {
	return Header{
		MsgID:    "4b1c2f0e-7d3a-4c55-9a10-3e2f1d0c9b8a",
		Session:  "5e6f7a8b-0000-4000-8000-1234567890ab",
		Username: "lab",
		Date:     "2026-11-29T09:15:00.123456Z",
		MsgType:  msgType,
		Version:  ProtocolVersion,
	}
}

type goldenCase struct {
	name string
	key  string
	msg  Message
}

func goldenCases() []goldenCase {
	parent := json.RawMessage(`{"msg_id":"a1","session":"s1","username":"u","date":"2026-11-29T09:14:59.000001Z","msg_type":"execute_request","version":"5.3","subshell_id":null}`)
	return []goldenCase{
		{
			name: "kernel_info_request",
			key:  "secret",
			msg: Message{
				Identities: [][]byte{[]byte("\x00k\x8b\x45\x67")},
				Header:     fixedHeader("kernel_info_request"),
			},
		},
		{
			name: "execute_request",
			key:  "9f2a6c0e-5b1d-4e7f-8a3c-2d4e6f8a0b1c",
			msg: Message{
				Identities: [][]byte{[]byte("router-a"), []byte("client-7")},
				Header:     fixedHeader("execute_request"),
				Metadata:   json.RawMessage(`{"cellId":"c-1"}`),
				Content:    json.RawMessage(`{"code":"fmt.Println(\"héllo\")\n1+1","silent":false,"store_history":true,"user_expressions":{},"allow_stdin":true,"stop_on_error":true}`),
			},
		},
		{
			name: "execute_reply_buffers",
			key:  "secret",
			msg: Message{
				Identities:   [][]byte{[]byte("client-7")},
				Header:       fixedHeader("execute_reply"),
				ParentHeader: parent,
				Metadata:     json.RawMessage(`{"started":"2026-11-29T09:15:00.000001Z"}`),
				Content:      json.RawMessage(`{"status":"ok","execution_count":3,"user_expressions":{}}`),
				Buffers:      [][]byte{{0x00, 0xff, 0x10, '\n'}, {}},
			},
		},
		{
			name: "status_unsigned",
			key:  "",
			msg: Message{
				Identities:   [][]byte{[]byte("kernel.5e6f.status")},
				Header:       fixedHeader("status"),
				ParentHeader: parent,
				Content:      json.RawMessage(`{"execution_state":"busy"}`),
			},
		},
	}
}

// goldenFrames writes frames one per line as Go-quoted strings, as
// readGolden reads them.
func goldenFrames(frames [][]byte) []byte {
	var b bytes.Buffer
	for _, f := range frames {
		b.WriteString(strconv.Quote(string(f)))
		b.WriteByte('\n')
	}
	return b.Bytes()
}

func readGolden(t testing.TB, path string) [][]byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var frames [][]byte
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		s, err := strconv.Unquote(sc.Text())
		if err != nil {
			t.Fatalf("%s:%d: %v", path, n, err)
		}
		frames = append(frames, []byte(s))
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return frames
}

func orEmpty(r json.RawMessage) string {
	if len(r) == 0 {
		return "{}"
	}
	return string(r)
}

func sameMessage(t *testing.T, got, want Message) {
	t.Helper()
	if len(got.Identities) != len(want.Identities) {
		t.Fatalf("identities: got %q, want %q", got.Identities, want.Identities)
	}
	for i := range want.Identities {
		if !bytes.Equal(got.Identities[i], want.Identities[i]) {
			t.Errorf("identity %d: got %q, want %q", i, got.Identities[i], want.Identities[i])
		}
	}
	if got.Header != want.Header {
		t.Errorf("header: got %+v, want %+v", got.Header, want.Header)
	}
	for _, p := range []struct {
		name      string
		got, want json.RawMessage
	}{{"parent", got.ParentHeader, want.ParentHeader}, {"metadata", got.Metadata, want.Metadata}, {"content", got.Content, want.Content}} {
		if orEmpty(p.got) != orEmpty(p.want) {
			t.Errorf("%s: got %s, want %s", p.name, p.got, p.want)
		}
	}
	if len(got.Buffers) != len(want.Buffers) {
		t.Fatalf("buffers: got %d, want %d", len(got.Buffers), len(want.Buffers))
	}
	for i := range want.Buffers {
		if !bytes.Equal(got.Buffers[i], want.Buffers[i]) {
			t.Errorf("buffer %d: got %q, want %q", i, got.Buffers[i], want.Buffers[i])
		}
	}
}

func TestGoldenRoundTrip(t *testing.T) {
	for _, tc := range goldenCases() {
		t.Run(tc.name, func(t *testing.T) {
			s, err := NewSigner("hmac-sha256", []byte(tc.key))
			if err != nil {
				t.Fatal(err)
			}
			frames, err := s.Encode(tc.msg)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", tc.name+".golden")
			golden.Check(t, path, goldenFrames(frames))
			want := readGolden(t, path)
			if len(frames) != len(want) {
				t.Fatalf("encoded %d frames, golden has %d", len(frames), len(want))
			}
			for i := range want {
				if !bytes.Equal(frames[i], want[i]) {
					t.Errorf("frame %d:\n got  %q\n want %q", i, frames[i], want[i])
				}
			}
			got, err := s.Decode(want)
			if err != nil {
				t.Fatalf("decode golden: %v", err)
			}
			sameMessage(t, got, tc.msg)
			if string(got.RawHeader) != string(want[len(tc.msg.Identities)+2]) {
				t.Errorf("RawHeader %s is not the header frame", got.RawHeader)
			}
		})
	}
}

// TestGoldenSignatureIsHMAC checks the golden signature against a value
// computed outside this package, with Python's standard library:
// hmac.new(b"secret", header+parent+metadata+content, hashlib.sha256).hexdigest()
func TestGoldenSignatureIsHMAC(t *testing.T) {
	const fromPython = "dea4338ed958baf512a0e85b5df16e1819e753b23888e36ef8d4d74feac8454d"
	frames := readGolden(t, filepath.Join("testdata", "kernel_info_request.golden"))
	if string(frames[2]) != fromPython {
		t.Fatalf("golden signature %s, python computed %s", frames[2], fromPython)
	}
	s, _ := NewSigner("hmac-sha256", []byte("secret"))
	if _, err := s.Decode(frames); err != nil {
		t.Fatal(err)
	}
}

func TestSignatureChecks(t *testing.T) {
	good, _ := NewSigner("hmac-sha256", []byte("secret"))
	msg := goldenCases()[1].msg
	frames, err := good.Encode(msg)
	if err != nil {
		t.Fatal(err)
	}
	sigAt := len(msg.Identities) + 1
	edit := func(f func(fr [][]byte) [][]byte) [][]byte {
		c := make([][]byte, len(frames))
		for i := range frames {
			c[i] = bytes.Clone(frames[i])
		}
		return f(c)
	}
	cases := []struct {
		name    string
		key     string
		frames  [][]byte
		wantErr error
	}{
		{"valid", "secret", frames, nil},
		{"wrong key", "Secret", frames, ErrBadSignature},
		{"missing signature", "secret", edit(func(f [][]byte) [][]byte { f[sigAt] = nil; return f }), ErrBadSignature},
		{"signature not hex", "secret", edit(func(f [][]byte) [][]byte { f[sigAt] = []byte("zz"); return f }), ErrBadSignature},
		{"truncated signature", "secret", edit(func(f [][]byte) [][]byte { f[sigAt] = f[sigAt][:62]; return f }), ErrBadSignature},
		{"tampered content", "secret", edit(func(f [][]byte) [][]byte {
			f[sigAt+4] = bytes.Replace(f[sigAt+4], []byte("1+1"), []byte("2+2"), 1)
			return f
		}), ErrBadSignature},
		{"tampered header", "secret", edit(func(f [][]byte) [][]byte {
			f[sigAt+1] = bytes.Replace(f[sigAt+1], []byte(`"lab"`), []byte(`"eve"`), 1)
			return f
		}), ErrBadSignature},
		{"tampered metadata", "secret", edit(func(f [][]byte) [][]byte { f[sigAt+3] = []byte(`{}`); return f }), ErrBadSignature},
		{"frames swapped", "secret", edit(func(f [][]byte) [][]byte {
			f[sigAt+2], f[sigAt+3] = f[sigAt+3], f[sigAt+2]
			return f
		}), ErrBadSignature},
		{"empty key accepts garbage signature", "", edit(func(f [][]byte) [][]byte { f[sigAt] = []byte("not-a-signature"); return f }), nil},
		{"empty key accepts missing signature", "", edit(func(f [][]byte) [][]byte { f[sigAt] = nil; return f }), nil},
		{"empty key accepts tampered content", "", edit(func(f [][]byte) [][]byte {
			f[sigAt+4] = bytes.Replace(f[sigAt+4], []byte("1+1"), []byte("2+2"), 1)
			return f
		}), nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, err := NewSigner("hmac-sha256", []byte(tc.key))
			if err != nil {
				t.Fatal(err)
			}
			_, err = s.Decode(tc.frames)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("Decode error %v, want %v", err, tc.wantErr)
			}
		})
	}
}

func TestUnsignedEncodeHasEmptySignature(t *testing.T) {
	s, _ := NewSigner("", nil)
	frames, err := s.Encode(Message{Header: fixedHeader("status")})
	if err != nil {
		t.Fatal(err)
	}
	if len(frames[1]) != 0 {
		t.Fatalf("unsigned message has signature %q", frames[1])
	}
}

func TestDecodeMalformed(t *testing.T) {
	s, _ := NewSigner("", nil)
	hdr := []byte(`{"msg_id":"1","msg_type":"x","session":"s","username":"u","date":"","version":"5.3"}`)
	d := []byte(Delimiter)
	cases := []struct {
		name   string
		frames [][]byte
		detail string
	}{
		{"nothing", nil, "no <IDS|MSG>"},
		{"no delimiter", [][]byte{[]byte("id"), hdr, []byte("{}"), []byte("{}"), []byte("{}")}, "no <IDS|MSG>"},
		{"too few frames", [][]byte{d, nil, hdr, []byte("{}"), []byte("{}")}, "4 frames after"},
		{"header not json", [][]byte{d, nil, []byte("{"), []byte("{}"), []byte("{}"), []byte("{}")}, "header"},
		{"header is a list", [][]byte{d, nil, []byte("[]"), []byte("{}"), []byte("{}"), []byte("{}")}, "header"},
		{"header without msg_type", [][]byte{d, nil, []byte(`{"msg_id":"1"}`), []byte("{}"), []byte("{}"), []byte("{}")}, "no msg_type"},
		{"parent not json", [][]byte{d, nil, hdr, []byte("nope"), []byte("{}"), []byte("{}")}, "parent_header"},
		{"metadata empty", [][]byte{d, nil, hdr, []byte("{}"), nil, []byte("{}")}, "metadata"},
		{"content is a list", [][]byte{d, nil, hdr, []byte("{}"), []byte("{}"), []byte("[1]")}, "content"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := s.Decode(tc.frames)
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("error %v, want ErrMalformed", err)
			}
			if !strings.Contains(err.Error(), tc.detail) || !strings.HasPrefix(err.Error(), "wire: ") {
				t.Fatalf("error %q lacks %q or the wire: prefix", err, tc.detail)
			}
		})
	}
}

func TestEncodeRejectsInvalidJSON(t *testing.T) {
	s, _ := NewSigner("hmac-sha256", []byte("k"))
	_, err := s.Encode(Message{Header: fixedHeader("x"), Content: json.RawMessage(`{"a":`)})
	if !errors.Is(err, ErrMalformed) {
		t.Fatalf("error %v, want ErrMalformed", err)
	}
}

func TestNewSignerScheme(t *testing.T) {
	cases := []struct {
		scheme  string
		key     string
		wantErr error
	}{
		{"hmac-sha256", "k", nil},
		{"", "k", nil},
		{"hmac-md5", "k", ErrUnsupportedScheme},
		{"hmac-md5", "", nil}, // no key: nothing is signed, the scheme is moot
	}
	for _, tc := range cases {
		_, err := NewSigner(tc.scheme, []byte(tc.key))
		if !errors.Is(err, tc.wantErr) {
			t.Errorf("NewSigner(%q, %q) error %v, want %v", tc.scheme, tc.key, err, tc.wantErr)
		}
	}
}

func TestNewHeader(t *testing.T) {
	before := time.Now().UTC().Truncate(time.Microsecond)
	h := NewHeader("sess", "user", "status")
	after := time.Now().UTC()
	if h.Session != "sess" || h.Username != "user" || h.MsgType != "status" || h.Version != "5.3" {
		t.Fatalf("header %+v", h)
	}
	if len(h.MsgID) != 36 || h.MsgID[14] != '4' || strings.Count(h.MsgID, "-") != 4 {
		t.Fatalf("msg_id %q is not a v4 UUID", h.MsgID)
	}
	if h2 := NewHeader("s", "u", "t"); h2.MsgID == h.MsgID {
		t.Fatal("two headers share a msg_id")
	}
	d, err := time.Parse(time.RFC3339Nano, h.Date)
	if err != nil {
		t.Fatal(err)
	}
	if d.Before(before) || d.After(after) || !strings.HasSuffix(h.Date, "Z") || len(h.Date) != len("2026-11-29T09:15:00.123456Z") {
		t.Fatalf("date %q not now in UTC with microseconds", h.Date)
	}
}

func TestReply(t *testing.T) {
	s, _ := NewSigner("hmac-sha256", []byte("secret"))
	// A request whose header has a field this package does not model.
	raw := `{"msg_id":"m1","session":"s1","username":"alice","date":"2026-11-29T09:00:00.000000Z","msg_type":"kernel_info_request","version":"5.3","subshell_id":"sub-1"}`
	frames := [][]byte{[]byte("peer"), []byte(Delimiter), nil, []byte(raw), []byte("{}"), []byte("{}"), []byte("{}")}
	var parts [4][]byte
	copy(parts[:], frames[3:7])
	frames[2] = s.sign(parts)
	req, err := s.Decode(frames)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Reply(req, "kernel_info_reply", map[string]any{"status": "ok"})
	if err != nil {
		t.Fatal(err)
	}
	if string(rep.ParentHeader) != raw {
		t.Errorf("parent header %s, want the request header verbatim", rep.ParentHeader)
	}
	if rep.Header.Session != "s1" || rep.Header.Username != "alice" || rep.Header.MsgType != "kernel_info_reply" {
		t.Errorf("reply header %+v", rep.Header)
	}
	if len(rep.Identities) != 1 || string(rep.Identities[0]) != "peer" {
		t.Errorf("identities %q", rep.Identities)
	}
	if string(rep.Content) != `{"status":"ok"}` {
		t.Errorf("content %s", rep.Content)
	}

	// Without RawHeader (a request built in code) the header is marshalled.
	rep2, err := Reply(Message{Header: fixedHeader("shutdown_request")}, "shutdown_reply", nil)
	if err != nil {
		t.Fatal(err)
	}
	var ph Header
	if err := json.Unmarshal(rep2.ParentHeader, &ph); err != nil || ph != fixedHeader("shutdown_request") {
		t.Errorf("parent %s (%v)", rep2.ParentHeader, err)
	}
	if string(rep2.Content) != "{}" {
		t.Errorf("nil content encoded as %s", rep2.Content)
	}
	if _, err := Reply(req, "x", []int{1}); !errors.Is(err, ErrMalformed) {
		t.Errorf("list content: error %v, want ErrMalformed", err)
	}
	var nilMap map[string]any
	if r, err := Reply(req, "x", nilMap); err != nil || string(r.Content) != "{}" {
		t.Errorf("nil map content: %s, %v", r.Content, err)
	}
}

// fuzzSep joins frames in a fuzz input; garbage inputs split anywhere.
const fuzzSep = "\x1e"

func FuzzDecode(f *testing.F) {
	paths, _ := filepath.Glob(filepath.Join("testdata", "*.golden"))
	if len(paths) == 0 {
		f.Fatal("no golden seeds in testdata")
	}
	for _, p := range paths {
		f.Add(bytes.Join(readGolden(f, p), []byte(fuzzSep)))
	}
	f.Add([]byte(Delimiter))
	f.Add([]byte{})
	keyed, _ := NewSigner("hmac-sha256", []byte("secret"))
	open, _ := NewSigner("", nil)
	f.Fuzz(func(t *testing.T, data []byte) {
		frames := bytes.Split(data, []byte(fuzzSep))
		_, _ = keyed.Decode(frames)
		m, err := open.Decode(frames)
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("unkeyed decode failed with %v, not ErrMalformed", err)
			}
			return
		}
		// What decodes must survive a re-encode and decode unchanged.
		again, err := keyed.Encode(m)
		if err != nil {
			t.Fatalf("re-encode: %v", err)
		}
		m2, err := keyed.Decode(again)
		if err != nil {
			t.Fatalf("decode of re-encoded message: %v", err)
		}
		if m2.Header != m.Header || string(m2.Content) != string(m.Content) || len(m2.Buffers) != len(m.Buffers) {
			t.Fatalf("round trip changed the message: %+v vs %+v", m2, m)
		}
	})
}

func BenchmarkEncodeDecode(b *testing.B) {
	s, _ := NewSigner("hmac-sha256", []byte("9f2a6c0e-5b1d-4e7f-8a3c-2d4e6f8a0b1c"))
	msg := goldenCases()[2].msg
	b.ReportAllocs()
	for b.Loop() {
		frames, err := s.Encode(msg)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := s.Decode(frames); err != nil {
			b.Fatal(err)
		}
	}
}
