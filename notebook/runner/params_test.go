package runner

import (
	"errors"
	"strings"
	"testing"

	"github.com/commlab/commlab/notebook"
)

func TestParametersTypes(t *testing.T) {
	tests := []struct {
		src  string
		want string // name:type, ...
	}{
		{"n := 8\nalpha := 2.5e-6\nname := \"ring\"\nok := true", "n:int alpha:float64 name:string ok:bool"},
		{"var size int64 = 1 << 30\nconst gbps = 25.0", "size:int64 gbps:float64"},
		{"var (\n\tlink = \"nvlink\"\n\ttimeout = 2 * time.Second\n)", "link:string timeout:time.Duration"},
		{"big := 1 << 20\nhalf := big / 2.0\nneg := -3\nr := 'x'", "big:int half:float64 neg:int r:rune"},
		{"f := float32(1)\nu := uint8(3)\nd := time.Duration(5)", "f:float32 u:uint8 d:time.Duration"},
		{"x := someFunc()\n_ = x", "x:"},
		{"import \"time\"\n\nwait := 2 * time.Second\nn := 4", "wait:time.Duration n:int"},
		{"import (\n\t\"fmt\"\n\t\"time\"\n)\nvar d = time.Minute\nfmt.Println(d)", "d:time.Duration"},
	}
	for _, tt := range tests {
		ps, err := Parameters(tt.src)
		if err != nil {
			t.Errorf("Parameters(%q): %v", tt.src, err)
			continue
		}
		var got []string
		for _, p := range ps {
			got = append(got, p.Name+":"+p.Type)
		}
		if strings.Join(got, " ") != tt.want {
			t.Errorf("Parameters(%q) = %v, want %s", tt.src, got, tt.want)
		}
	}
	if _, err := Parameters("n := "); !errors.Is(err, ErrParameter) {
		t.Errorf("syntax error: %v", err)
	}
}

func paramNotebook(src string) *notebook.Notebook {
	nb := notebook.New()
	nb.Cells = []*notebook.Cell{
		{Type: notebook.Markdown, Source: "# t"},
		{Type: notebook.Code, Source: src, Metadata: map[string]any{"tags": []any{"parameters"}}},
		{Type: notebook.Code, Source: "old", Metadata: map[string]any{"tags": []any{"injected-parameters"}}},
		{Type: notebook.Code, Source: "use()"},
	}
	nb.EnsureIDs()
	return nb
}

func TestInjectParameters(t *testing.T) {
	src := "n := 8\nalpha := 2.5\nname := \"ring\"\nverbose := false\nconst limit = 3\nvar wait time.Duration = time.Second\nx := f()"
	tests := []struct {
		values map[string]string
		want   string
		err    string
	}{
		{map[string]string{"n": "16", "alpha": "3", "name": `a "b"`}, "// Parameters\nalpha = 3.0\nn = 16\nname = \"a \\\"b\\\"\"", ""},
		{map[string]string{"verbose": "true", "limit": "0x10", "wait": "1m"}, "// Parameters\nconst limit = 16\nverbose = true\nwait = 60000000000 /* 1m0s */", ""},
		{map[string]string{"nope": "1"}, "", `unknown parameter "nope" (the parameters cell declares n, alpha, name, verbose, limit, wait, x)`},
		{map[string]string{"n": "1.5"}, "", "parameter n is int"},
		{map[string]string{"verbose": "maybe"}, "", "parameter verbose is bool"},
		{map[string]string{"x": "1"}, "", "type -p cannot set"},
		{map[string]string{"wait": "soon"}, "", "parameter wait is time.Duration"},
		{map[string]string{"alpha": "inf"}, "", "parameter alpha is float64: \"inf\": NaN and the infinities have no Go constant"},
		{map[string]string{"alpha": "NaN"}, "", "no Go constant"},
		{map[string]string{"alpha": "1e6"}, "// Parameters\nalpha = 1e+06", ""},
	}
	for _, tt := range tests {
		nb := paramNotebook(src)
		err := InjectParameters(nb, tt.values)
		if tt.err != "" {
			if !errors.Is(err, ErrParameter) || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%v: err = %v, want %q", tt.values, err, tt.err)
			}
			if len(nb.Cells) != 4 || nb.Cells[2].Source != "old" {
				t.Errorf("%v: the notebook changed on error", tt.values)
			}
			continue
		}
		if err != nil {
			t.Errorf("%v: %v", tt.values, err)
			continue
		}
		if len(nb.Cells) != 4 {
			t.Fatalf("cells = %d, want the old injected cell replaced", len(nb.Cells))
		}
		c := nb.Cells[2]
		if !c.HasTag(TagInjectedParameters) || c.Source != tt.want {
			t.Errorf("%v: injected %q, want %q", tt.values, c.Source, tt.want)
		}
	}
	nb := notebook.New()
	nb.Cells = []*notebook.Cell{{Type: notebook.Code, Source: "n := 1"}}
	if err := InjectParameters(nb, map[string]string{"n": "2"}); !errors.Is(err, ErrParameter) || !strings.Contains(err.Error(), "no code cell tagged") {
		t.Errorf("no parameters cell: %v", err)
	}
}

func FuzzParameters(f *testing.F) {
	for _, s := range []string{"n := 8\nalpha := 2.5", "var (\n\tx = 1 << 3\n\td = 2 * time.Second\n)", "import \"time\"\nw := time.Minute", "}\nfunc x() {", "const c, d = 1, \"s\""} {
		f.Add(s, "7")
	}
	f.Fuzz(func(t *testing.T, src, value string) {
		params, err := Parameters(src)
		if err != nil {
			return
		}
		values := map[string]string{}
		for _, p := range params {
			values[p.Name] = value
		}
		nb := paramNotebook(src)
		before := len(nb.Cells)
		if err := InjectParameters(nb, values); err != nil {
			if !errors.Is(err, ErrParameter) || len(nb.Cells) != before {
				t.Fatalf("err %v, cells %d", err, len(nb.Cells))
			}
		}
	})
}
