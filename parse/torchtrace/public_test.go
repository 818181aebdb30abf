package torchtrace

import (
	"bytes"
	"testing"

	"github.com/commlab/commlab/internal/golden"
)

// TestPublicTraces reads each public trace (testdata/public, sources in
// its README) and holds the whole-trace summary to a golden file; the
// first one stamps its events in microseconds since the Unix epoch.
func TestPublicTraces(t *testing.T) {
	inputs := golden.Inputs(t, 1, "testdata/public/*.json.gz")
	golden.Each(t, inputs, golden.AppendExt, func(t *testing.T, data []byte) []byte {
		tr, err := Parse(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		rep, err := tr.Report(Options{})
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := rep.WriteSummary(&b, "trace"); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	})
}

func TestNanosEpochMicroseconds(t *testing.T) {
	for _, in := range []string{"1689795210123456", "1689795210123456.5"} {
		if _, ok := nanos(in); !ok {
			t.Errorf("nanos(%q): refused", in)
		}
	}
	if _, ok := nanos("99999999999999999"); ok {
		t.Error("a time past 9e15 us accepted")
	}
}
