package session

import (
	"fmt"
	"go/parser"
	"go/scanner"
	"go/token"
	"os/exec"
	"path"
	"reflect"
	"regexp"
	"sort"
	"strings"
)

// HistoryEntry is one executed cell.
type HistoryEntry struct {
	Session int
	Line    int
	Input   string
}

// History returns the cells of this session: the last n (tail, n <= 0 for
// all), lines [start, stop) (range), or those matching a glob pattern
// (search, * and ? wildcards, as IPython's history search).
func (s *Session) History(access string, n, start, stop int, pattern string) []HistoryEntry {
	s.run.Lock()
	defer s.run.Unlock()
	all := append([]HistoryEntry(nil), s.history...)
	switch access {
	case "range":
		var out []HistoryEntry
		for _, h := range all {
			if h.Line >= start && (stop <= 0 || h.Line < stop) {
				out = append(out, h)
			}
		}
		return out
	case "search":
		re := globToRegexp(pattern)
		var out []HistoryEntry
		for _, h := range all {
			if re.MatchString(h.Input) {
				out = append(out, h)
			}
		}
		if n > 0 && len(out) > n {
			out = out[len(out)-n:]
		}
		return out
	default: // tail
		if n > 0 && len(all) > n {
			all = all[len(all)-n:]
		}
		return all
	}
}

func globToRegexp(glob string) *regexp.Regexp {
	if glob == "" {
		glob = "*"
	}
	var b strings.Builder
	b.WriteString("(?s)^")
	for _, r := range glob {
		switch r {
		case '*':
			b.WriteString(".*")
		case '?':
			b.WriteString(".")
		default:
			b.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	b.WriteString("$")
	return regexp.MustCompile(b.String())
}

// Completeness of a cell as is_complete_request asks it.
const (
	Complete   = "complete"
	Incomplete = "incomplete"
	Invalid    = "invalid"
)

// IsComplete tells a console whether the code can run as typed, needs more
// lines (with the indent of the next line), or cannot be fixed by typing
// more.
func IsComplete(code string) (status, indent string) {
	if strings.TrimSpace(code) == "" {
		return Complete, ""
	}
	var errs scanner.ErrorList
	var s scanner.Scanner
	fset := token.NewFileSet()
	file := fset.AddFile("", -1, len(code))
	s.Init(file, []byte(code), func(pos token.Position, msg string) { errs.Add(pos, msg) }, 0)
	depth := 0
	for {
		_, tok, _ := s.Scan()
		if tok == token.EOF {
			break
		}
		depth += bracketDepth(tok)
	}
	for _, e := range errs {
		if strings.Contains(e.Msg, "not terminated") {
			return Incomplete, ""
		}
	}
	if depth < 0 {
		return Invalid, ""
	}
	if depth > 0 {
		return Incomplete, strings.Repeat("    ", depth)
	}
	if len(errs) > 0 {
		return Invalid, ""
	}
	items, err := splitCell(code)
	if err != nil {
		return Invalid, ""
	}
	for _, g := range groupItems(items) {
		src := g.source(code)
		prefix, suffix := declPrefix, ""
		if g.kind == itemStmt {
			prefix, suffix = stmtPrefix, stmtSuffix
		}
		if _, err := parser.ParseFile(token.NewFileSet(), "", prefix+src+suffix, 0); err != nil {
			if strings.HasSuffix(strings.TrimSpace(code), ",") || strings.HasSuffix(strings.TrimSpace(code), "+") {
				return Incomplete, "    "
			}
			return Invalid, ""
		}
	}
	return Complete, ""
}

var goKeywords = []string{"break", "case", "chan", "const", "continue", "default", "defer", "else",
	"fallthrough", "for", "func", "go", "goto", "if", "import", "interface", "map", "package",
	"range", "return", "select", "struct", "switch", "type", "var"}

var goBuiltins = []string{"append", "cap", "clear", "close", "complex", "copy", "delete", "imag",
	"len", "make", "max", "min", "new", "panic", "print", "println", "real", "recover",
	"bool", "byte", "complex64", "complex128", "error", "float32", "float64", "int", "int8",
	"int16", "int32", "int64", "rune", "string", "uint", "uint8", "uint16", "uint32", "uint64",
	"uintptr", "any", "comparable", "true", "false", "iota", "nil"}

var identBefore = regexp.MustCompile(`([\p{L}_][\p{L}\p{N}_]*\.)?([\p{L}_][\p{L}\p{N}_]*)?$`)
var definedInCell = regexp.MustCompile(`(?m)(?:\b(?:func|type|var|const)\s+([\p{L}_][\p{L}\p{N}_]*))|(?:([\p{L}_][\p{L}\p{N}_]*)(?:\s*,\s*[\p{L}_][\p{L}\p{N}_]*)*\s*:=)`)

// Complete returns the candidates for the word before cursor (a byte
// offset) and the byte range they replace.
func (s *Session) Complete(code string, cursor int) (matches []string, start, end int) {
	if cursor < 0 || cursor > len(code) {
		cursor = len(code)
	}
	before := code[:cursor]
	m := identBefore.FindStringSubmatchIndex(before)
	qualifier, word := "", ""
	start = cursor
	if m != nil {
		if m[2] >= 0 {
			qualifier = before[m[2] : m[3]-1]
		}
		if m[4] >= 0 {
			word = before[m[4]:m[5]]
			start = m[4]
		}
	}
	seen := map[string]bool{}
	add := func(c string) {
		if strings.HasPrefix(c, word) && !seen[c] && !strings.HasPrefix(c, "__commlab") {
			seen[c] = true
			matches = append(matches, c)
		}
	}
	if qualifier != "" {
		for _, c := range s.members(qualifier) {
			add(c)
		}
	} else {
		for _, k := range goKeywords {
			add(k)
		}
		for _, b := range goBuiltins {
			add(b)
		}
		s.run.Lock()
		for name := range s.globals() {
			add(name)
		}
		for _, d := range s.decls.all() {
			if !strings.Contains(d.name, ".") {
				add(d.name)
			}
		}
		for _, im := range s.imports {
			add(im.name)
		}
		s.run.Unlock()
		for _, dm := range definedInCell.FindAllStringSubmatch(before, -1) {
			for _, n := range dm[1:] {
				if n != "" {
					add(n)
				}
			}
		}
		for name := range s.known {
			add(name)
		}
	}
	sort.Strings(matches)
	return matches, start, cursor
}

// members lists what follows "qualifier.": a package's exported names, or
// the fields and methods of a session variable's type.
func (s *Session) members(qualifier string) []string {
	if p := s.packagePath(qualifier); p != "" {
		if names, ok := polyfillMembers()[p]; ok {
			return names // the interpreted generic functions, all callable
		}
		syms := s.exported[p+"/"+path.Base(p)]
		out := make([]string, 0, len(syms))
		for name := range syms {
			if name != "" && name[0] >= 'A' && name[0] <= 'Z' {
				out = append(out, name)
			}
		}
		return out
	}
	s.run.Lock()
	v, ok := s.globals()[qualifier]
	var methods []string
	for _, d := range s.decls.all() {
		if d.kind == "method" {
			methods = append(methods, d.name)
		}
	}
	s.run.Unlock()
	if !ok || !v.IsValid() {
		return nil
	}
	t := v.Type()
	var out []string
	for i := 0; i < t.NumMethod(); i++ {
		out = append(out, t.Method(i).Name)
	}
	et := t
	if et.Kind() == reflect.Pointer {
		et = et.Elem()
	}
	if et.Kind() == reflect.Struct {
		for i := 0; i < et.NumField(); i++ {
			out = append(out, fieldName(et.Field(i).Name))
		}
		// Methods of interpreted types are not in reflect: take them from
		// the declarations whose receiver type has the same fields.
		for _, m := range methods {
			typeName, method, _ := strings.Cut(m, ".")
			if d, ok := s.decls.get(typeName); ok && d.kind == "type" && sameFields(d.src, et) {
				out = append(out, method)
			}
		}
	}
	return out
}

// fieldName undoes yaegi's renaming of unexported fields of interpreted
// structs ("count" is stored as "Xcount" so reflect can build the type).
func fieldName(stored string) string {
	if len(stored) > 1 && stored[0] == 'X' && stored[1] >= 'a' && stored[1] <= 'z' {
		return stored[1:]
	}
	return stored
}

func sameFields(typeSrc string, t reflect.Type) bool {
	for i := 0; i < t.NumField(); i++ {
		if !strings.Contains(typeSrc, fieldName(t.Field(i).Name)) {
			return false
		}
	}
	return true
}

func (s *Session) packagePath(name string) string {
	s.run.Lock()
	defer s.run.Unlock()
	return s.pathOf(name)
}

// pathOf is the package a name refers to in a cell: an import in effect,
// else the package auto-import would add; "" if none.
func (s *Session) pathOf(name string) string {
	for _, im := range s.imports {
		if im.name == name {
			return im.path
		}
	}
	return s.known[name]
}

// Inspection is what inspect_request and `name?` show.
type Inspection struct {
	Name      string
	Signature string
	Doc       string
}

// Inspect describes the name under or before cursor: its signature from
// the symbol tables, and its documentation from `go doc` when a Go toolchain
// is installed.
func (s *Session) Inspect(code string, cursor int) (Inspection, bool) {
	if cursor < 0 || cursor > len(code) {
		cursor = len(code)
	}
	// Extend the word to the right of the cursor too.
	end := cursor
	for end < len(code) && isIdentByte(code[end]) {
		end++
	}
	m := identBefore.FindStringSubmatch(code[:end])
	if m == nil || m[2] == "" {
		return Inspection{}, false
	}
	qualifier := strings.TrimSuffix(m[1], ".")
	name := m[2]
	if qualifier == "" {
		if p := s.packagePath(name); p != "" {
			return Inspection{Name: name, Signature: "package " + name + ` // import "` + p + `"`, Doc: goDoc(p)}, true
		}
		s.run.Lock()
		d, ok := s.decls.get(name)
		v, gok := s.globals()[name]
		s.run.Unlock()
		if ok {
			sig := d.src
			if i := strings.Index(sig, "{"); i > 0 && (d.kind == "func" || d.kind == "method") {
				sig = strings.TrimSpace(sig[:i])
			}
			return Inspection{Name: name, Signature: sig}, true
		}
		if gok && v.IsValid() {
			return Inspection{Name: name, Signature: fmt.Sprintf("var %s %s = %v", name, v.Type(), v)}, true
		}
		for _, b := range goBuiltins {
			if b == name {
				return Inspection{Name: name, Signature: "builtin " + name, Doc: goDoc("builtin." + name)}, true
			}
		}
		return Inspection{}, false
	}
	p := s.packagePath(qualifier)
	if p == "" {
		return Inspection{}, false
	}
	sym, ok := s.exported[p+"/"+path.Base(p)][name]
	if !ok {
		return Inspection{}, false
	}
	sig := describeSymbol(qualifier, name, sym)
	return Inspection{Name: qualifier + "." + name, Signature: sig, Doc: goDoc(p + "." + name)}, true
}

func isIdentByte(b byte) bool {
	return b == '_' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b >= 0x80
}

func describeSymbol(pkg, name string, v reflect.Value) string {
	if !v.IsValid() {
		return pkg + "." + name
	}
	t := v.Type()
	switch {
	case t.Kind() == reflect.Func:
		return "func " + pkg + "." + name + strings.TrimPrefix(t.String(), "func")
	case t.Kind() == reflect.Pointer && v.Elem().Kind() != reflect.Invalid && v.IsNil():
		// a type symbol: yaegi extract stores (*T)(nil)
		return "type " + pkg + "." + name + " " + t.Elem().Kind().String()
	case t.Kind() == reflect.Pointer && v.IsNil():
		return "type " + pkg + "." + name
	}
	return fmt.Sprintf("%s.%s %s", pkg, name, t)
}

// goDoc asks the Go toolchain for documentation; a machine without one
// gets the signature alone.
func goDoc(target string) string {
	goBin, err := exec.LookPath("go")
	if err != nil {
		return ""
	}
	out, err := exec.Command(goBin, "doc", target).CombinedOutput()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// GoLanguageVersion is the Go language version of the module, go.mod's go
// line to the minor version.
const GoLanguageVersion = "1.26"

// LanguageInfo is the language_info of kernel_info_reply, which the
// headless runner writes into the notebooks it executes and commlab sync
// into the shipped notebooks, as Jupyter front ends do. It must not vary
// between builds: a front end that opens a notebook whose language_info
// differs from the kernel's rewrites the file. So version is the Go
// language version cells are written in (go.mod's go line), not the
// toolchain that built the binary.
func LanguageInfo() map[string]any {
	return map[string]any{
		"name":            "go",
		"version":         GoLanguageVersion,
		"mimetype":        "text/x-go",
		"file_extension":  ".go",
		"pygments_lexer":  "go",
		"codemirror_mode": "go",
	}
}
