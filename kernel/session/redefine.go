package session

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

func (s *Session) runDecls(cell string, rw rewriteResult) error {
	// A type or method whose text changed cannot be redefined in place
	// (yaegi keeps the first one): rebuild the interpreter from the
	// declarations.
	rebuild := false
	var fixed []string
	for _, n := range rw.declared {
		if d, ok := s.decls.get(n); ok && (d.kind == "type" || d.kind == "method") {
			rebuild = true
			fixed = append(fixed, n)
		}
	}
	before := map[string]bool{}
	for _, n := range rw.declared {
		if _, ok := s.decls.get(n); ok {
			before[n] = true
		}
	}
	if rebuild {
		trial := *s.decls
		trial.byName = map[string]*declaration{}
		for k, v := range s.decls.byName {
			c := *v
			trial.byName[k] = &c
		}
		changed := trial.record(rw.src)
		if !typeChanged(s.decls, &trial, fixed) {
			rebuild = false
		} else {
			if err := s.rebuild(&trial, fixed); err != nil {
				return s.compileError(cell, err)
			}
			s.decls = &trial
			_ = changed
			return nil
		}
	}
	if _, err := s.eval(rw.src); err != nil {
		return s.compileError(cell, rw.explainCrash(err))
	}
	changed := s.decls.record(rw.src)
	var redefined []string
	for _, n := range changed {
		if before[n] {
			redefined = append(redefined, n)
		}
	}
	s.recompileDependents(redefined, rw.declared)
	return nil
}

func typeChanged(old, updated *declTable, names []string) bool {
	for _, n := range names {
		o, ok1 := old.get(n)
		u, ok2 := updated.get(n)
		if ok1 && ok2 && o.src != u.src {
			return true
		}
	}
	return false
}

// recompileDependents compiles again every declaration that uses a
// redefined name, so calls reach the new definition.
func (s *Session) recompileDependents(redefined, justDeclared []string) {
	if len(redefined) == 0 {
		return
	}
	except := map[string]bool{}
	for _, n := range justDeclared {
		except[n] = true
	}
	deps := s.decls.dependents(redefined, except)
	if len(deps) == 0 {
		return
	}
	var b strings.Builder
	for _, d := range deps {
		b.WriteString(d.src)
		b.WriteString("\n")
	}
	if _, err := s.eval(b.String()); err == nil {
		for _, d := range deps {
			d.stub = ""
		}
		return
	}
	// One at a time, so that those that still compile take the new
	// definition; one that no longer compiles is replaced by a function
	// of the same signature that says so when called, as Go would refuse
	// to build it.
	var broken []string
	var firstErr error
	for _, d := range deps {
		_, err := s.eval(d.src)
		if err == nil {
			d.stub = ""
			continue
		}
		if firstErr == nil {
			firstErr = err
		}
		broken = append(broken, d.name)
		if stub, ok := brokenStub(d, redefined, err); ok {
			if _, err := s.eval(stub); err == nil {
				d.stub = stub
			}
		}
	}
	if len(broken) > 0 {
		s.streamSinkDirect("stderr", fmt.Sprintf("note: %s no longer compile%s with the new definition of %s (%v): run %s again after changing %s\n",
			strings.Join(broken, ", "), plural(len(broken), "s", ""), strings.Join(redefined, ", "), strings.TrimSpace(position.ReplaceAllString(unshadow(firstErr.Error()), "")), pronoun(len(broken)), pronoun(len(broken))))
	}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func pronoun(n int) string { return plural(n, "its cell", "their cells") }

// brokenStub is a function with d's signature whose body panics with what
// went wrong: calling a function that no longer compiles says so instead
// of running code compiled against a definition that is gone.
func brokenStub(d *declaration, redefined []string, err error) (string, bool) {
	if d.kind != "func" && d.kind != "method" {
		return "", false
	}
	f, perr := parser.ParseFile(token.NewFileSet(), "", declPrefix+d.src, parser.SkipObjectResolution)
	if perr != nil || len(f.Decls) != 1 {
		return "", false
	}
	fd, ok := f.Decls[0].(*ast.FuncDecl)
	if !ok || fd.Body == nil {
		return "", false
	}
	full := declPrefix + d.src
	base := int(f.Pos()) // positions are 1-based offsets of full
	head := full[int(fd.Pos())-base : int(fd.Body.Lbrace)-base]
	why := strings.TrimSpace(position.ReplaceAllString(unshadow(err.Error()), ""))
	msg := fmt.Sprintf("%s no longer compiles since %s changed (%s): run its cell again", d.name, strings.Join(redefined, ", "), why)
	return head + "{ panic(" + strconv.Quote(msg) + ") }", true
}

// rebuild starts a fresh interpreter with every recorded import and
// declaration, then carries over the values of variables whose types are
// unchanged. Variables that cannot be carried are named on stderr.
func (s *Session) rebuild(decls *declTable, changed []string) error {
	oldGlobals := s.globals()
	oldStderr := s.stderrW
	in, err := s.newInterpreter()
	if err != nil {
		return err
	}
	for _, im := range s.imports {
		if _, err := evalIn(in, fmt.Sprintf("import %s %q", im.name, im.path)); err != nil {
			s.stderrW = oldStderr
			return err
		}
	}
	var b strings.Builder
	for _, d := range decls.all() {
		if d.stub != "" {
			b.WriteString(d.stub) // what no longer compiles stays a stub
		} else {
			b.WriteString(d.src)
		}
		b.WriteString("\n")
	}
	if _, err := evalIn(in, b.String()); err != nil {
		s.stderrW = oldStderr
		return fmt.Errorf("redefinition rejected, previous definitions kept: %w", err)
	}
	newGlobals, _ := tryGlobals(in)
	var dropped []string
	for _, name := range slices.Sorted(maps.Keys(oldGlobals)) {
		ov := oldGlobals[name]
		if strings.HasPrefix(name, "__commlab") || !ov.IsValid() {
			continue
		}
		if nv, ok := newGlobals[name]; ok {
			if nv.CanSet() && nv.Type() == ov.Type() {
				nv.Set(ov)
			}
			continue
		}
		// Declared again from its reflect type, it no longer has the
		// type the statement that defined it gave it.
		delete(s.types.varTypes, name)
		ts := ov.Type().String()
		if !restorable(ts, s.imports) {
			dropped = append(dropped, name)
			continue
		}
		if _, err := evalIn(in, "var "+name+" "+ts); err != nil {
			dropped = append(dropped, name)
			continue
		}
		if g, _ := tryGlobals(in); g != nil && g[name].IsValid() && g[name].CanSet() && g[name].Type() == ov.Type() {
			g[name].Set(ov)
		} else {
			dropped = append(dropped, name)
		}
	}
	s.in = in
	if len(dropped) > 0 {
		s.streamSinkDirect("stderr", fmt.Sprintf("note: a type was redefined; these variables were dropped and need their cells run again: %s\n", strings.Join(dropped, ", ")))
		if s.dropped == nil {
			s.dropped = map[string]string{}
		}
		for _, name := range dropped {
			s.dropped[name] = strings.Join(changed, ", ")
		}
	}
	return nil
}

var qualifier = regexp.MustCompile(`\b([a-z][a-z0-9_]*)\.[A-Z]`)

// restorable reports whether a reflect type string can be declared again in
// source: no anonymous struct, interface, func or chan (interpreted named
// types show up as such), and every package qualifier imported.
func restorable(ts string, imports []importSpec) bool {
	for _, bad := range []string{"struct", "interface", "func", "chan"} {
		if strings.Contains(ts, bad) {
			return false
		}
	}
	for _, m := range qualifier.FindAllStringSubmatch(ts, -1) {
		found := false
		for _, im := range imports {
			if im.name == m[1] {
				found = true
			}
		}
		if !found {
			return false
		}
	}
	return true
}
