package session

import (
	"embed"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"sort"
	"sync"

	"github.com/traefik/yaegi/interp"
)

// The standard library's generic functions cannot live in a compiled
// symbol table; yaegi interprets its own copy of slices, maps and cmp, but
// v0.16.1 cannot call most of it (no type inference from S ~[]E, a Sort it
// leaves out). The session interprets these polyfills over them, in this
// order (slices uses cmp).
//
//go:embed polyfill/*.go.txt
var polyfillFS embed.FS

var polyfillPackages = []string{"cmp", "maps", "slices"}

func loadPolyfills(in *interp.Interpreter) error {
	for _, p := range polyfillPackages {
		src, err := polyfillFS.ReadFile("polyfill/" + p + ".go.txt")
		if err != nil {
			return fmt.Errorf("session: polyfill %s: %w", p, err)
		}
		if _, err := in.Compile(string(src)); err != nil {
			return fmt.Errorf("session: polyfill %s: %w", p, err)
		}
	}
	return nil
}

// polyfillMembers lists, per package, the exported names the polyfills
// (and yaegi's own copy, for the types) define: what completion offers
// after "slices.", "maps.", "cmp.".
var polyfillMembers = sync.OnceValue(func() map[string][]string {
	out := map[string][]string{"cmp": {"Ordered"}}
	for _, p := range polyfillPackages {
		src, _ := polyfillFS.ReadFile("polyfill/" + p + ".go.txt")
		f, err := parser.ParseFile(token.NewFileSet(), "", src, parser.SkipObjectResolution)
		if err != nil {
			continue
		}
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Name.IsExported() {
				out[p] = append(out[p], fd.Name.Name)
			}
		}
		sort.Strings(out[p])
	}
	return out
})

// iterators are the standard library's functions that return an iterator
// (range over func, Go 1.23), which yaegi v0.16.1 cannot range over, and
// the loop to write instead.
var iterators = map[string]map[string]string{
	"maps": {
		"Keys":    "for k := range m { ... }",
		"Values":  "for _, v := range m { ... }",
		"All":     "for k, v := range m { ... }",
		"Collect": "for k, v := range src { m[k] = v }",
		"Insert":  "for k, v := range src { m[k] = v } (or maps.Copy(m, src))",
	},
	"slices": {
		"All":              "for i, v := range s { ... }",
		"Values":           "for _, v := range s { ... }",
		"Backward":         "for i := len(s) - 1; i >= 0; i-- { v := s[i]; ... }",
		"Collect":          "for _, v := range src { s = append(s, v) }",
		"AppendSeq":        "for _, v := range src { s = append(s, v) }",
		"Sorted":           "s := slices.Clone(src); slices.Sort(s)",
		"SortedFunc":       "s := slices.Clone(src); slices.SortFunc(s, cmp)",
		"SortedStableFunc": "s := slices.Clone(src); slices.SortStableFunc(s, cmp)",
		"Chunk":            "for i := 0; i < len(s); i += n { c := s[i:min(i+n, len(s))]; ... }",
	},
	"strings": {
		"Lines":         "for _, line := range strings.SplitAfter(s, \"\\n\") { ... }",
		"SplitSeq":      "for _, part := range strings.Split(s, sep) { ... }",
		"SplitAfterSeq": "for _, part := range strings.SplitAfter(s, sep) { ... }",
		"FieldsSeq":     "for _, f := range strings.Fields(s) { ... }",
		"FieldsFuncSeq": "for _, f := range strings.FieldsFunc(s, f) { ... }",
	},
	"bytes": {
		"Lines":         "for _, line := range bytes.SplitAfter(b, []byte(\"\\n\")) { ... }",
		"SplitSeq":      "for _, part := range bytes.Split(b, sep) { ... }",
		"SplitAfterSeq": "for _, part := range bytes.SplitAfter(b, sep) { ... }",
		"FieldsSeq":     "for _, f := range bytes.Fields(b) { ... }",
		"FieldsFuncSeq": "for _, f := range bytes.FieldsFunc(b, f) { ... }",
	},
}

// iteratorError names a use of an iterator function and the loop to write
// instead; "" if sel is none.
func iteratorError(pkgPath, pkg, name string) string {
	loop, ok := iterators[pkgPath][name]
	if !ok {
		return ""
	}
	return fmt.Sprintf("%s.%s returns an iterator (range over func), which the interpreter cannot run: write `%s`", pkg, name, loop)
}
