package files_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/commlab/commlab/parse"
	"github.com/commlab/commlab/parse/files"
	"github.com/commlab/commlab/parse/torchtrace"
)

// words is a toy format: a file of words, refused when empty.
type words []string

func (w words) WriteSummary(out io.Writer, name string) error {
	_, err := fmt.Fprintf(out, "%s: %d words\n", name, len(w))
	return err
}

func parseWords(r io.Reader) (words, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	w := words(strings.Fields(string(b)))
	if len(w) == 0 {
		return w, fmt.Errorf("words: %w: empty", parse.ErrFormat)
	}
	return w, nil
}

func TestFormat(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	a, empty := write("a.txt", "one two three"), write("empty.txt", "")
	for _, tt := range []struct {
		name    string
		files   []string
		opt     files.Options
		want    string
		wantErr string
	}{
		{name: "one file", files: []string{a}, want: a + ": 3 words\n"},
		{name: "stdin", files: []string{"-"}, opt: files.Options{Stdin: strings.NewReader("x y")}, want: "(stdin): 2 words\n"},
		{name: "not the format: no summary, the error names the file", files: []string{a, empty}, want: a + ": 3 words\n", wantErr: empty + ": words: "},
		{name: "missing file", files: []string{filepath.Join(dir, "nope")}, wantErr: "no such file"},
		{name: "json keeps every file", files: []string{a, empty}, opt: files.Options{JSON: true},
			want: `[{"file":"` + a + `","words":["one","two","three"]},{"file":"` + empty + `","error":"words: parse: not this format: empty","words":[]}]`, wantErr: "empty"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var out strings.Builder
			err := files.Format(tt.files, tt.opt, &out, "words", parseWords)
			got := out.String()
			if tt.opt.JSON {
				var v any
				if jerr := json.Unmarshal([]byte(got), &v); jerr != nil {
					t.Fatalf("not JSON: %v\n%s", jerr, got)
				}
				b, _ := json.Marshal(v)
				got, tt.want = string(b), normalize(t, tt.want)
			}
			if got != tt.want {
				t.Errorf("output %q, want %q", got, tt.want)
			}
			if (err == nil) != (tt.wantErr == "") || err != nil && !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("error %v, want %q", err, tt.wantErr)
			}
		})
	}
}

// normalize writes JSON text as json.Marshal orders it.
func normalize(t *testing.T, s string) string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func TestTopoFromStdinAndErrors(t *testing.T) {
	topo, err := os.ReadFile("../nvidiasmi/testdata/topo/hgx-h20-8gpu-8nic.txt")
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := files.Topo([]string{"-"}, files.Options{JSON: true, Stdin: strings.NewReader(string(topo))}, &out); err != nil {
		t.Fatal(err)
	}
	var r files.ParsedTopo
	if err := json.Unmarshal([]byte(out.String()), &r); err != nil || r.File != "(stdin)" || len(r.Topology.NICs) != 8 {
		t.Errorf("topo --json from stdin: %v %+v", err, r)
	}
	if err := files.FlightRecorder([]string{t.TempDir()}, files.Options{}, io.Discard); err == nil || !strings.Contains(err.Error(), "no dump files") {
		t.Errorf("empty dump directory: %v", err)
	}
	if err := files.TorchTrace([]string{"-"}, files.Options{Stdin: strings.NewReader("not json")}, torchOpts(), io.Discard); !errors.Is(err, parse.ErrFormat) {
		t.Errorf("not a trace: %v, want parse.ErrFormat", err)
	}
}

// A notebook cell (or the command) summarises files of one format.
func ExampleFormat() {
	parseLines := func(r io.Reader) (words, error) { return parseWords(r) }
	files.Format([]string{"-"}, files.Options{Stdin: strings.NewReader("all_reduce all_gather")}, os.Stdout, "words", parseLines)
	// Output: (stdin): 2 words
}

func torchOpts() torchtrace.Options { return torchtrace.Options{Device: -1} }
