package textinput

import (
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
)

var errBad = errors.New("tool: malformed line")

func TestRead(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []string
	}{
		{"empty", "", []string{""}},
		{"crlf", "a\r\nb\r\n", []string{"a", "b", ""}},
		{"no final newline", "a\nb", []string{"a", "b"}},
		{"srun labels", "0: a\n0: b\n", []string{"a", "b", ""}},
		{"mpirun tags keep line numbers", "[1,0]<stdout>:a\n\n[1,0]<stdout>:b", []string{"a", "", "b"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Read(strings.NewReader(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestReadCleanKeepsWhatWasReadOnError(t *testing.T) {
	data, err := ReadClean(iotest.TimeoutReader(strings.NewReader("0: a\n0: b\n")))
	if err == nil {
		t.Fatal("no error from a failing reader")
	}
	if string(data) != "a\nb\n" {
		t.Errorf("got %q, want what was read, cleaned", data)
	}
}

func TestScan(t *testing.T) {
	s := &Scanner{Format: "tool", Malformed: errBad}
	var got []string
	err := s.Scan(strings.NewReader("0: one\r\n0: two\n0: three\n"), func(line string) error {
		got = append(got, line)
		if line == "two" {
			return s.Errorf(errBad, "bad %q", line)
		}
		return nil
	})
	if !reflect.DeepEqual(got, []string{"one", "two"}) {
		t.Errorf("fed %q, want one and two", got)
	}
	if !errors.Is(err, errBad) || err.Error() != `tool: line 2: bad "two"` {
		t.Errorf("error %v, want line 2's", err)
	}
	if e := s.ErrorAt(7, errBad, "earlier"); e.Error() != "tool: line 7: earlier" {
		t.Errorf("ErrorAt: %v", e)
	}
}

func TestScanErrors(t *testing.T) {
	s := &Scanner{Format: "tool", Malformed: errBad}
	err := s.Scan(iotest.ErrReader(io.ErrUnexpectedEOF), func(string) error { return nil })
	if !errors.Is(err, errBad) || err.Error() != "tool: line 1: read: unexpected EOF" {
		t.Errorf("failed read: %v", err)
	}
	s = &Scanner{Format: "tool", Malformed: errBad}
	long := "ok\n" + strings.Repeat("x", 5<<20) + "\n"
	err = s.Scan(strings.NewReader(long), func(string) error { return nil })
	if !errors.Is(err, errBad) || !strings.HasPrefix(err.Error(), "tool: line 2: ") {
		t.Errorf("over-long line: %v", err)
	}
}
