package session

import (
	"fmt"
	"go/parser"
	"go/token"
	"io"
	"maps"
	"os"
	"path"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"
)

type importSpec struct {
	name, path string
}

func (s *Session) reset() error {
	in, err := s.newInterpreter()
	if err != nil {
		return err
	}
	s.in = in
	return nil
}

func (s *Session) newInterpreter() (*interp.Interpreter, error) {
	s.stderrW = &interpStderr{out: os.Stderr}
	var stdout io.Writer = os.Stdout
	if s.stdout == nil {
		stdout = eventWriter{name: "stdout", emit: s.streamSink}
		s.stderrW.out = eventWriter{name: "stderr", emit: s.streamSink}
	}
	in := interp.New(interp.Options{
		Stdin:  inputReader{s: s},
		Stdout: stdout,
		Stderr: s.stderrW,
	})
	if err := in.Use(stdlib.Symbols); err != nil {
		return nil, fmt.Errorf("session: load standard library: %w", err)
	}
	// Restricted mode (kept: os.Exit must not end the kernel) gives cells
	// a private copy of the environment; a notebook sets NCCL_* variables
	// for the probes it calls, so cells get the process's own.
	if err := in.Use(interp.Exports{"os/os": {
		"Getenv": reflect.ValueOf(os.Getenv), "LookupEnv": reflect.ValueOf(os.LookupEnv),
		"Setenv": reflect.ValueOf(os.Setenv), "Unsetenv": reflect.ValueOf(os.Unsetenv),
		"Environ": reflect.ValueOf(os.Environ), "ExpandEnv": reflect.ValueOf(os.ExpandEnv),
		"Clearenv": reflect.ValueOf(os.Clearenv),
	}}); err != nil {
		return nil, fmt.Errorf("session: environment: %w", err)
	}
	// The compiled packages come per import; a rebuilt interpreter gets
	// those the session imported.
	paths := make([]string, len(s.imports))
	for i, im := range s.imports {
		paths[i] = im.path
	}
	if err := s.packages.use(in, paths...); err != nil {
		return nil, err
	}
	if err := in.Use(interp.Exports{"commlab.session/helpers/helpers": s.helperSymbols()}); err != nil {
		return nil, fmt.Errorf("session: load helpers: %w", err)
	}
	if err := loadPolyfills(in); err != nil {
		return nil, err
	}
	if _, err := in.Eval(prelude); err != nil {
		return nil, fmt.Errorf("session: prelude: %w", err)
	}
	return in, nil
}

// helperSymbols are the compiled functions the rewritten cells call.
func (s *Session) helperSymbols() map[string]reflect.Value {
	return map[string]reflect.Value{
		"Result": reflect.ValueOf(func(vs ...any) {
			s.result = s.result[:0]
			for _, v := range vs {
				s.result = append(s.result, reflect.ValueOf(v))
			}
			s.hasResult = true
		}),
		"GoPanic": reflect.ValueOf(s.goPanic),
		"Cell":    reflect.ValueOf(func() int { return s.count }),
		"Clear": reflect.ValueOf(func(v any) {
			rv := reflect.ValueOf(v)
			switch rv.Kind() {
			case reflect.Map, reflect.Slice:
				rv.Clear()
			default:
				panic(fmt.Sprintf("invalid argument: clear(%T): argument must be a map or a slice", v))
			}
		}),
	}
}

// packageTables holds the compiled packages cells may import
// (Options.Packages) and hands them to yaegi per import, so that starting an
// interpreter does not grow with the number of preloaded packages. An
// import brings the package's table and the tables of the preloaded
// packages its API reaches: yaegi finds the wrapper that lets an
// interpreted value satisfy a compiled interface in the table of the
// interface's package, which the cell may not have imported.
type packageTables struct {
	keys   map[string]string // import path -> table key ("path/name")
	tables map[string]map[string]reflect.Value
	reach  map[string][]string // import path -> preloaded paths its API reaches, itself first
}

func newPackageTables(tables map[string]map[string]reflect.Value) *packageTables {
	t := &packageTables{keys: map[string]string{}, tables: tables, reach: map[string][]string{}}
	for key := range tables {
		if p := path.Dir(key); p != "." {
			t.keys[p] = key
		}
	}
	return t
}

// use hands in the tables the imports of paths need; paths that are not
// preloaded packages (the standard library's) are skipped. Handing a table
// twice is harmless.
func (t *packageTables) use(in *interp.Interpreter, paths ...string) error {
	exports := interp.Exports{}
	for _, p := range paths {
		for _, r := range t.reachable(p) {
			key := t.keys[r]
			exports[key] = t.tables[key]
		}
	}
	if len(exports) == 0 {
		return nil
	}
	if err := in.Use(exports); err != nil {
		return fmt.Errorf("session: load packages: %w", err)
	}
	return nil
}

// reachable is p and the preloaded packages whose named types p's exported
// symbols reach, through fields, elements, signatures and methods.
func (t *packageTables) reachable(p string) []string {
	if r, ok := t.reach[p]; ok {
		return r
	}
	key, ok := t.keys[p]
	if !ok {
		return nil
	}
	found := []string{p}
	seen := map[reflect.Type]bool{}
	var walk func(reflect.Type)
	walkMethods := func(ty reflect.Type) {
		for i := range ty.NumMethod() {
			walk(ty.Method(i).Type)
		}
	}
	walk = func(ty reflect.Type) {
		if seen[ty] {
			return
		}
		seen[ty] = true
		if pp := ty.PkgPath(); pp != "" {
			// A named type: only the preloaded packages' types lead on.
			if _, ok := t.keys[pp]; !ok {
				return
			}
			if !slices.Contains(found, pp) {
				found = append(found, pp)
			}
			if ty.Kind() != reflect.Interface {
				walkMethods(reflect.PointerTo(ty))
			}
		}
		switch ty.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Chan:
			walk(ty.Elem())
		case reflect.Map:
			walk(ty.Key())
			walk(ty.Elem())
		case reflect.Func:
			for i := range ty.NumIn() {
				walk(ty.In(i))
			}
			for i := range ty.NumOut() {
				walk(ty.Out(i))
			}
		case reflect.Struct:
			for i := range ty.NumField() {
				if f := ty.Field(i); f.IsExported() {
					walk(f.Type)
				}
			}
		case reflect.Interface:
			walkMethods(ty)
		}
	}
	for _, v := range t.tables[key] {
		if v.IsValid() {
			walk(v.Type())
		}
	}
	t.reach[p] = found
	return found
}

// describe lists the preloaded packages, by name and import path, for
// %help: what Options.Packages holds (the program's generated tables).
func (t *packageTables) describe(b *strings.Builder) {
	if len(t.keys) == 0 {
		return
	}
	b.WriteString("Preloaded packages, besides the standard library (import them, or use name.X and the import is added):\n")
	for _, p := range slices.Sorted(maps.Keys(t.keys)) {
		fmt.Fprintf(b, "  %-12s %s\n", path.Base(t.keys[p]), p)
	}
}

func knownPackages(exported map[string]map[string]reflect.Value) map[string]string {
	// Where two packages share a name, goimports prefers the shorter,
	// more common path; keep that rule: math/rand over crypto/rand.
	known := map[string]string{}
	for key := range exported {
		slash := strings.LastIndex(key, "/")
		if slash <= 0 {
			continue
		}
		p := key[:slash]
		name := path.Base(p)
		if strings.Contains(p, "internal") || strings.HasPrefix(p, "commlab.session") {
			continue
		}
		if old, ok := known[name]; !ok || len(p) < len(old) || (len(p) == len(old) && p < old) {
			known[name] = p
		}
	}
	if _, ok := known["rand"]; ok {
		known["rand"] = "math/rand"
	}
	return known
}

// globals is the interpreter's global variables and constants. yaegi's
// Globals indexes a frame that only grows when code runs, and a compile that
// failed can leave a symbol past its end: run an empty statement to grow
// the frame and ask again.
func (s *Session) globals() map[string]reflect.Value {
	if g, ok := tryGlobals(s.in); ok {
		return g
	}
	_, _ = evalIn(s.in, "_ = 0")
	if g, ok := tryGlobals(s.in); ok {
		return g
	}
	return map[string]reflect.Value{}
}

func tryGlobals(in *interp.Interpreter) (g map[string]reflect.Value, ok bool) {
	defer func() {
		if recover() != nil {
			g, ok = nil, false
		}
	}()
	return in.Globals(), true
}

func (s *Session) scope() scopeInfo {
	globals := s.globals()
	return scopeInfo{
		defined: func(name string) bool {
			if _, ok := globals[name]; ok {
				return true
			}
			_, ok := s.decls.get(name)
			return ok
		},
		imported: func(name string) bool {
			for _, im := range s.imports {
				if im.name == name {
					return true
				}
			}
			return false
		},
		globalType: func(name string) reflect.Type {
			if v, ok := globals[name]; ok && v.IsValid() {
				return v.Type()
			}
			return nil
		},
		pkgSymbol: s.pkgSymbol,
		pkgPath: func(name string) string {
			if _, ok := globals[name]; ok {
				return ""
			}
			if _, ok := s.decls.get(name); ok {
				return ""
			}
			return s.pathOf(name)
		},
		constDecls: s.decls.consts(),
		known: func(name string) bool {
			_, ok := s.known[name]
			return ok
		},
		namedGeneric: s.namedGeneric(globals),
		check:        s.checkGroup,
	}
}

// runImports evaluates a cell's imports. An import already in effect (the
// same name for the same path) is skipped: yaegi rejects a second one, and
// re-running a cell must work.
func (s *Session) runImports(cell, src string) error {
	f, err := parser.ParseFile(token.NewFileSet(), "", declPrefix+src, parser.ImportsOnly)
	if err != nil {
		return s.compileError(cell, err)
	}
	var fresh []string
	var added []importSpec
	for _, spec := range f.Imports {
		p, _ := strconv.Unquote(spec.Path.Value)
		name := s.packageName(p)
		if spec.Name != nil {
			name = spec.Name.Name
		}
		if s.importedAs(name, p) {
			continue
		}
		alias := ""
		if spec.Name != nil {
			alias = spec.Name.Name + " "
		}
		fresh = append(fresh, "import "+alias+strconv.Quote(p))
		added = append(added, importSpec{name, p})
	}
	if len(fresh) == 0 {
		return nil
	}
	paths := make([]string, len(added))
	for i, im := range added {
		paths[i] = im.path
	}
	if err := s.packages.use(s.in, paths...); err != nil {
		return err
	}
	line, _ := lineCol(cell, strings.Index(cell, "import"))
	if _, err := s.eval(strings.Repeat("\n", line) + strings.Join(fresh, ";")); err != nil {
		return s.compileError(cell, err)
	}
	for _, im := range added {
		s.addImport(im.name, im.path)
	}
	return nil
}

func (s *Session) importedAs(name, p string) bool {
	for _, im := range s.imports {
		if im.name == name && im.path == p {
			return true
		}
	}
	return false
}

// packageName is the name a package declares, from the symbol tables
// (math/rand/v2 is "rand"), else the path's last element.
func (s *Session) packageName(p string) string {
	for key := range s.exported {
		if strings.HasPrefix(key, p+"/") && !strings.Contains(key[len(p)+1:], "/") {
			return key[len(p)+1:]
		}
	}
	return path.Base(p)
}

func (s *Session) addImport(name, p string) {
	for i, im := range s.imports {
		if im.name == name {
			s.imports[i].path = p
			return
		}
	}
	s.imports = append(s.imports, importSpec{name, p})
}

// autoImport adds imports of known packages a group uses without importing
// them, as goimports would; unknown names are left for the compiler to
// report.
func (s *Session) autoImport(names []string) error {
	for _, name := range names {
		p, ok := s.known[name]
		if !ok {
			continue
		}
		if err := s.packages.use(s.in, p); err != nil {
			return err
		}
		spec := fmt.Sprintf("import %s %q", name, p)
		if _, err := s.eval(spec); err != nil {
			return err
		}
		s.addImport(name, p)
	}
	return nil
}

func (s *Session) eval(src string) (reflect.Value, error) { return evalIn(s.in, src) }

func evalIn(in *interp.Interpreter, src string) (v reflect.Value, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	v, err = in.Eval(src)
	if p, ok := err.(interp.Panic); ok {
		err = fmt.Errorf("%v", p.Value)
	}
	return v, err
}

// compile compiles without running; yaegi can panic on code it does not
// support, which becomes an ordinary compile error here.
func (s *Session) compile(src string) (prog *interp.Program, err error) {
	defer func() {
		if r := recover(); r != nil {
			prog, err = nil, fmt.Errorf("unsupported by the interpreter: %v", r)
		}
	}()
	return s.in.Compile(src)
}
