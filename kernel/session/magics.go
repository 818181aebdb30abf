package session

import (
	"context"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"slices"
	"sort"
	"strings"
	"time"
)

// magic is one IPython-style command a cell may use.
type magic struct {
	name, usage, help string
	// line runs `%name args`; cell (for `%%name`) runs with the rest of
	// the cell as body.
	line func(s *Session, ctx context.Context, args string) error
	cell func(s *Session, ctx context.Context, args, body string) error
}

var magics map[string]magic

func init() {
	list := []magic{
		{name: "help", usage: "%help", help: "list the magics and the preloaded packages", line: magicHelp},
		{name: "time", usage: "%time STATEMENT, %%time", help: "run Go code and report its wall time",
			line: func(s *Session, ctx context.Context, args string) error { return s.timed(ctx, args) },
			cell: func(s *Session, ctx context.Context, _, body string) error { return s.timed(ctx, body) }},
		{name: "env", usage: "%env [NAME[=VALUE]]", help: "list, show or set environment variables", line: magicEnv},
		{name: "cd", usage: "%cd [DIR]", help: "change the working directory (home without DIR)", line: magicCd},
		{name: "who", usage: "%who", help: "list the names defined in this session", line: magicWho},
		{name: "reset", usage: "%reset", help: "forget every definition and start a fresh interpreter", line: magicReset},
		{name: "solutions", usage: "%solutions", help: "says why this kernel runs no trainer's solutions (they are not in it)", line: magicSolutions},
		{name: "load", usage: "%load FILE.go", help: "run a Go file's code in this session, as if it were a cell", line: magicLoad},
		{name: "bash", usage: "%%bash", help: "run the cell with bash, streaming its output",
			cell: func(s *Session, ctx context.Context, args, body string) error { return s.shell(ctx, "bash", body) }},
		{name: "!", usage: "!COMMAND", help: "run a shell command, streaming its output"},
	}
	magics = map[string]magic{}
	for _, m := range list {
		magics[m.name] = m
	}
}

func magicNames() string {
	var names []string
	for n, m := range magics {
		if n == "!" {
			continue
		}
		if m.line != nil {
			names = append(names, "%"+n)
		}
		if m.cell != nil {
			names = append(names, "%%"+n)
		}
	}
	sort.Strings(names)
	return strings.Join(append(names, "!cmd"), ", ")
}

func magicHelp(s *Session, _ context.Context, _ string) error {
	names := slices.Sorted(maps.Keys(magics))
	var b strings.Builder
	b.WriteString("Magics (a line starting with % or !, or a cell starting with %%):\n")
	for _, n := range names {
		fmt.Fprintf(&b, "  %-26s %s\n", magics[n].usage, magics[n].help)
	}
	b.WriteString("Append ? to a name (strings.ToUpper?) to see its documentation.\n")
	s.packages.describe(&b)
	s.streamSinkDirect("stdout", b.String())
	return nil
}

func (s *Session) timed(ctx context.Context, code string) error {
	start := time.Now()
	err := s.runCell(ctx, code)
	s.streamSinkDirect("stdout", fmt.Sprintf("Wall time: %s\n", roundDuration(time.Since(start))))
	return err
}

func roundDuration(d time.Duration) time.Duration {
	switch {
	case d > time.Second:
		return d.Round(time.Millisecond)
	case d > time.Millisecond:
		return d.Round(time.Microsecond)
	}
	return d
}

func magicEnv(s *Session, _ context.Context, args string) error {
	args = strings.TrimSpace(args)
	switch {
	case args == "":
		env := os.Environ()
		sort.Strings(env)
		s.streamSinkDirect("stdout", strings.Join(env, "\n")+"\n")
	case strings.Contains(args, "="):
		name, value, _ := strings.Cut(args, "=")
		name = strings.TrimSpace(name)
		if err := os.Setenv(name, strings.TrimSpace(value)); err != nil {
			return &cellError{ename: "MagicError", evalue: "%env: " + err.Error(), traceback: []string{"%env: " + err.Error()}}
		}
		s.streamSinkDirect("stdout", fmt.Sprintf("env: %s=%s\n", name, os.Getenv(name)))
	default:
		s.streamSinkDirect("stdout", os.Getenv(args)+"\n")
	}
	return nil
}

func magicCd(s *Session, _ context.Context, args string) error {
	dir := strings.TrimSpace(args)
	if dir == "" || dir == "~" {
		home, err := os.UserHomeDir()
		if err != nil {
			return magicError("cd", err)
		}
		dir = home
	}
	if err := os.Chdir(dir); err != nil {
		return magicError("cd", err)
	}
	wd, _ := os.Getwd()
	s.streamSinkDirect("stdout", wd+"\n")
	return nil
}

func magicWho(s *Session, _ context.Context, _ string) error {
	seen := map[string]bool{}
	for name := range s.globals() {
		if !strings.HasPrefix(name, "__commlab") {
			seen[name] = true
		}
	}
	for _, d := range s.decls.all() {
		if !strings.Contains(d.name, ".") {
			seen[d.name] = true
		}
	}
	names := slices.Sorted(maps.Keys(seen))
	if len(names) == 0 {
		s.streamSinkDirect("stdout", "Interactive namespace is empty.\n")
		return nil
	}
	s.streamSinkDirect("stdout", strings.Join(names, "\t")+"\n")
	return nil
}

func magicReset(s *Session, _ context.Context, _ string) error {
	if err := s.forgetAll(); err != nil {
		return magicError("reset", err)
	}
	s.streamSinkDirect("stdout", "Session reset: every definition is gone.\n")
	return nil
}

func magicLoad(s *Session, ctx context.Context, args string) error {
	path := strings.TrimSpace(args)
	if path == "" {
		return magicError("load", fmt.Errorf("usage: %%load FILE.go"))
	}
	src, err := os.ReadFile(path)
	if err != nil {
		return magicError("load", err)
	}
	code := string(src)
	// A whole Go file: drop its package clause; its declarations and
	// imports then run as a cell would.
	if i := strings.Index(code, "package "); i >= 0 && strings.TrimSpace(code[:i]) == "" || strings.HasPrefix(strings.TrimSpace(code), "package ") {
		lines := strings.SplitN(code, "\n", 2)
		for len(lines) == 2 && !strings.HasPrefix(strings.TrimSpace(lines[0]), "package ") {
			lines = strings.SplitN(lines[1], "\n", 2)
		}
		if len(lines) == 2 {
			code = "\n" + lines[1]
		}
	}
	return s.runCell(ctx, code)
}

func (s *Session) shell(ctx context.Context, shellName, script string) error {
	cmd := exec.CommandContext(ctx, shellName, "-c", script)
	cmd.Stdout = eventWriter{name: "stdout", emit: s.streamSinkDirect}
	cmd.Stderr = eventWriter{name: "stderr", emit: s.streamSinkDirect}
	err := cmd.Run()
	if ctx.Err() != nil {
		return &cellError{ename: "Interrupted", evalue: "the command was interrupted", traceback: []string{"Interrupted"}}
	}
	if err != nil {
		return &cellError{ename: "ShellError", evalue: err.Error(), traceback: []string{fmt.Sprintf("%s: %v", strings.TrimSpace(firstLine(script)), err)}}
	}
	return nil
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

func magicError(name string, err error) error {
	msg := "%" + name + ": " + err.Error()
	return &cellError{ename: "MagicError", evalue: msg, traceback: []string{msg}}
}

// runWithMagics runs a cell that may hold magics: a first line `%%name`
// hands the whole cell to that cell magic; otherwise each line starting
// with % or ! runs as a line magic, in order with the Go code around it.
func (s *Session) runWithMagics(ctx context.Context, code string) error {
	trimmed := strings.TrimLeft(code, " \t\r\n")
	if strings.HasPrefix(trimmed, "%%") {
		header, body, _ := strings.Cut(trimmed, "\n")
		name, args, _ := strings.Cut(strings.TrimPrefix(header, "%%"), " ")
		m, ok := magics[name]
		if !ok || m.cell == nil {
			return unknownMagic("%%" + name)
		}
		return m.cell(s, ctx, args, body)
	}
	if !hasLineMagic(code) {
		return s.runCell(ctx, code)
	}
	lines := strings.Split(code, "\n")
	var goLines []string
	start := 0
	flushGo := func() error {
		if strings.TrimSpace(strings.Join(goLines, "\n")) == "" {
			goLines = nil
			return nil
		}
		// Keep the cell's line numbers in errors.
		src := strings.Repeat("\n", start) + strings.Join(goLines, "\n")
		goLines = nil
		return s.runCell(ctx, src)
	}
	for i, line := range lines {
		t := strings.TrimLeft(line, " \t")
		if !strings.HasPrefix(t, "%") && !strings.HasPrefix(t, "!") || strings.HasPrefix(t, "!=") {
			if goLines == nil {
				start = i
			}
			goLines = append(goLines, line)
			continue
		}
		if err := flushGo(); err != nil {
			return err
		}
		if strings.HasPrefix(t, "!") {
			if err := s.shell(ctx, "sh", strings.TrimPrefix(t, "!")); err != nil {
				return err
			}
			continue
		}
		name, args, _ := strings.Cut(strings.TrimPrefix(t, "%"), " ")
		m, ok := magics[name]
		if !ok || m.line == nil {
			return unknownMagic("%" + name)
		}
		if err := m.line(s, ctx, args); err != nil {
			return err
		}
	}
	return flushGo()
}

// hasLineMagic reports whether any line starts with % or ! (Go has no
// statement that starts so).
func hasLineMagic(code string) bool {
	for _, line := range strings.Split(code, "\n") {
		t := strings.TrimLeft(line, " \t")
		if strings.HasPrefix(t, "%") || (strings.HasPrefix(t, "!") && !strings.HasPrefix(t, "!=")) {
			return true
		}
	}
	return false
}

func unknownMagic(name string) error {
	msg := fmt.Sprintf("unknown magic %s; known: %s", name, magicNames())
	return &cellError{ename: "MagicError", evalue: msg, traceback: []string{msg}}
}
