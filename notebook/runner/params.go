package runner

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/commlab/commlab/notebook"
)

// Cell tags of papermill's convention.
const (
	TagParameters         = "parameters"
	TagInjectedParameters = "injected-parameters"
)

// ErrParameter reports a -p value that cannot be injected: an unknown name,
// a value of the wrong type, or a notebook without a parameters cell.
var ErrParameter = errors.New("lab: bad parameter")

// Parameter is one default declared in the parameters cell.
type Parameter struct {
	Name string
	// Type is the Go type the value must have: int, int64, uint64,
	// float64, string, bool, time.Duration, ... ("" when commlab cannot
	// tell it from the declaration; such a parameter cannot be set).
	Type    string
	Default string // the default's source text
	Const   bool
	Line    int // line in the cell
}

// Parameters lists the defaults declared in a parameters cell: `var` and
// `const` declarations and `name := value` statements, in order.
func Parameters(src string) ([]Parameter, error) {
	fset := token.NewFileSet()
	var params []Parameter
	text := func(e ast.Expr, full string) string {
		return full[fset.Position(e.Pos()).Offset:fset.Position(e.End()).Offset]
	}
	add := func(name *ast.Ident, typ ast.Expr, val ast.Expr, isConst bool, full string, lineShift int) {
		if name.Name == "_" {
			return
		}
		p := Parameter{Name: name.Name, Const: isConst, Line: fset.Position(name.Pos()).Line - lineShift}
		if typ != nil {
			p.Type = text(typ, full)
		} else if val != nil {
			p.Type = inferType(val)
		}
		if val != nil {
			p.Default = text(val, full)
		}
		params = append(params, p)
	}
	// addDecl adds the names of a var or const declaration.
	addDecl := func(g *ast.GenDecl, full string, lineShift int) {
		if g.Tok != token.VAR && g.Tok != token.CONST {
			return
		}
		for _, s := range g.Specs {
			vs := s.(*ast.ValueSpec)
			for i, n := range vs.Names {
				var val ast.Expr
				if i < len(vs.Values) {
					val = vs.Values[i]
				}
				add(n, vs.Type, val, g.Tok == token.CONST, full, lineShift)
			}
		}
	}
	// Declarations only: parse as a file.
	const filePrefix = "package p\n"
	full := filePrefix + src
	if f, err := parser.ParseFile(fset, "", full, parser.SkipObjectResolution); err == nil {
		for _, d := range f.Decls {
			if g, ok := d.(*ast.GenDecl); ok {
				addDecl(g, full, 1)
			}
		}
		return params, nil
	}
	// Statements (x := 1): parse as a function body, with the cell's
	// imports blanked out (lines kept, so positions stay right).
	stmts := src
	if f, err := parser.ParseFile(token.NewFileSet(), "", filePrefix+src, parser.ImportsOnly); err == nil && len(f.Decls) > 0 {
		end := int(f.Decls[len(f.Decls)-1].End()) - 1 - len(filePrefix)
		if end > 0 && end <= len(src) {
			stmts = strings.Repeat("\n", strings.Count(src[:end], "\n")) + src[end:]
		}
	}
	const bodyPrefix = "package p\nfunc _() {\n"
	full = bodyPrefix + stmts + "\n}\n"
	f, err := parser.ParseFile(fset, "", full, parser.SkipObjectResolution)
	if err != nil {
		return nil, fmt.Errorf("%w: parameters cell: %w", ErrParameter, err)
	}
	body := f.Decls[0].(*ast.FuncDecl).Body
	for _, st := range body.List {
		switch st := st.(type) {
		case *ast.AssignStmt:
			if st.Tok != token.DEFINE || len(st.Lhs) != len(st.Rhs) {
				continue
			}
			for i, l := range st.Lhs {
				if id, ok := l.(*ast.Ident); ok {
					add(id, nil, st.Rhs[i], false, full, 2)
				}
			}
		case *ast.DeclStmt:
			addDecl(st.Decl.(*ast.GenDecl), full, 2)
		}
	}
	return params, nil
}

var durationUnits = map[string]bool{"Nanosecond": true, "Microsecond": true, "Millisecond": true, "Second": true, "Minute": true, "Hour": true}

// inferType gives the default type of an untyped expression, as Go would.
func inferType(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.BasicLit:
		switch e.Kind {
		case token.INT:
			return "int"
		case token.FLOAT:
			return "float64"
		case token.STRING:
			return "string"
		case token.CHAR:
			return "rune"
		}
	case *ast.Ident:
		if e.Name == "true" || e.Name == "false" {
			return "bool"
		}
	case *ast.ParenExpr:
		return inferType(e.X)
	case *ast.UnaryExpr:
		if e.Op == token.NOT {
			return "bool"
		}
		return inferType(e.X)
	case *ast.SelectorExpr:
		if x, ok := e.X.(*ast.Ident); ok && x.Name == "time" && durationUnits[e.Sel.Name] {
			return "time.Duration"
		}
	case *ast.CallExpr:
		switch fn := e.Fun.(type) {
		case *ast.Ident:
			if _, ok := settable[fn.Name]; ok {
				return fn.Name
			}
		case *ast.SelectorExpr:
			if x, ok := fn.X.(*ast.Ident); ok && x.Name == "time" && fn.Sel.Name == "Duration" {
				return "time.Duration"
			}
		}
	case *ast.BinaryExpr:
		switch e.Op {
		case token.EQL, token.NEQ, token.LSS, token.LEQ, token.GTR, token.GEQ, token.LAND, token.LOR:
			return "bool"
		case token.SHL, token.SHR:
			return inferType(e.X)
		}
		x, y := inferType(e.X), inferType(e.Y)
		// Typed operands win over untyped constants; float over int.
		for _, t := range []string{"time.Duration", "string", "float64", "rune", "int"} {
			if x == t || y == t {
				return t
			}
		}
	}
	return ""
}

// settable maps each type a -p value can take to a function that checks a
// value and writes it as a Go constant.
var settable = map[string]func(string) (string, error){
	"int": intLit(64), "int8": intLit(8), "int16": intLit(16), "int32": intLit(32), "int64": intLit(64),
	"uint": uintLit(64), "uint8": uintLit(8), "uint16": uintLit(16), "uint32": uintLit(32), "uint64": uintLit(64),
	"uintptr": uintLit(64), "byte": uintLit(8), "rune": intLit(32),
	"float32": floatLit(32), "float64": floatLit(64),
	"string": func(v string) (string, error) { return strconv.Quote(v), nil },
	"bool": func(v string) (string, error) {
		b, err := strconv.ParseBool(v)
		return strconv.FormatBool(b), err
	},
	"time.Duration": func(v string) (string, error) {
		d, err := time.ParseDuration(v)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("%d /* %v */", int64(d), d), nil
	},
}

// untypedDefault are the types an untyped constant takes by default, so a
// constant of one of them is injected untyped, as declared.
var untypedDefault = map[string]bool{"int": true, "float64": true, "string": true, "bool": true, "rune": true}

func intLit(bits int) func(string) (string, error) {
	return func(v string) (string, error) {
		n, err := strconv.ParseInt(strings.ReplaceAll(v, "_", ""), 0, bits)
		return strconv.FormatInt(n, 10), err
	}
}

func uintLit(bits int) func(string) (string, error) {
	return func(v string) (string, error) {
		n, err := strconv.ParseUint(strings.ReplaceAll(v, "_", ""), 0, bits)
		return strconv.FormatUint(n, 10), err
	}
}

func floatLit(bits int) func(string) (string, error) {
	return func(v string) (string, error) {
		f, err := strconv.ParseFloat(v, bits)
		if err == nil && (math.IsInf(f, 0) || math.IsNaN(f)) {
			return "", errors.New("NaN and the infinities have no Go constant: set them in the notebook with math.NaN() or math.Inf(1)")
		}
		s := strconv.FormatFloat(f, 'g', -1, bits)
		if err == nil && !strings.ContainsAny(s, ".eEnN") {
			s += ".0"
		}
		return s, err
	}
}

// InjectParameters checks values against the parameters cell and inserts
// the cell that sets them after it, tagged injected-parameters, replacing
// one a previous run injected. Nothing changes when it returns an error.
func InjectParameters(nb *notebook.Notebook, values map[string]string) error {
	var kept []*notebook.Cell
	paramsAt := -1
	for _, c := range nb.Cells {
		if c.HasTag(TagInjectedParameters) {
			continue
		}
		if paramsAt < 0 && c.Type == notebook.Code && c.HasTag(TagParameters) {
			paramsAt = len(kept)
		}
		kept = append(kept, c)
	}
	if len(values) == 0 {
		nb.Cells = kept
		return nil
	}
	if paramsAt < 0 {
		return fmt.Errorf("%w: the notebook has no code cell tagged %q to set %s", ErrParameter, TagParameters, strings.Join(slices.Sorted(maps.Keys(values)), ", "))
	}
	decl, err := Parameters(kept[paramsAt].Source)
	if err != nil {
		return err
	}
	byName := map[string]Parameter{}
	var known []string
	for _, p := range decl {
		byName[p.Name] = p
		known = append(known, p.Name)
	}
	var lines []string
	for _, name := range slices.Sorted(maps.Keys(values)) {
		p, ok := byName[name]
		if !ok {
			return fmt.Errorf("%w: unknown parameter %q (the parameters cell declares %s)", ErrParameter, name, strings.Join(known, ", "))
		}
		conv, ok := settable[p.Type]
		if !ok {
			return fmt.Errorf("%w: parameter %s has a type -p cannot set (%q, default %s)", ErrParameter, name, p.Type, p.Default)
		}
		lit, err := conv(values[name])
		if err != nil {
			return fmt.Errorf("%w: parameter %s is %s: %q: %w", ErrParameter, name, p.Type, values[name], err)
		}
		if p.Const && untypedDefault[p.Type] {
			lines = append(lines, fmt.Sprintf("const %s = %s", name, lit))
		} else if p.Const {
			lines = append(lines, fmt.Sprintf("const %s %s = %s", name, p.Type, lit))
		} else {
			lines = append(lines, fmt.Sprintf("%s = %s", name, lit))
		}
	}
	injected := &notebook.Cell{
		Type:     notebook.Code,
		ID:       "injected-parameters",
		Source:   "// Parameters\n" + strings.Join(lines, "\n"),
		Metadata: map[string]any{"tags": []any{TagInjectedParameters}},
	}
	cells := append([]*notebook.Cell{}, kept[:paramsAt+1]...)
	cells = append(cells, injected)
	nb.Cells = append(cells, kept[paramsAt+1:]...)
	for _, c := range nb.Cells {
		if c != injected && c.ID == injected.ID {
			injected.ID = ""
			nb.EnsureIDs()
			break
		}
	}
	return nil
}

// Params are the -p name=value flags of a headless run, as a flag.Value:
// repeatable, the last value of a name wins. NewJob injects them.
type Params map[string]string

func (p Params) String() string {
	var parts []string
	for k, v := range p {
		parts = append(parts, k+"="+v)
	}
	return strings.Join(parts, " ")
}

// Set takes one name=value.
func (p Params) Set(s string) error {
	name, value, ok := strings.Cut(s, "=")
	name = strings.TrimSpace(name)
	if !ok || name == "" {
		return fmt.Errorf("want name=value, got %q", s)
	}
	p[name] = value
	return nil
}
