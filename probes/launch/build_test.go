package launch

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
)

func TestCachedProgramBuild(t *testing.T) {
	cache := t.TempDir()
	prog := CachedProgram{Name: "hello", Source: []byte("#!/bin/sh\necho hello\n"), Ext: ".sh"}
	if _, built := prog.Path(cache); built {
		t.Fatal("built before any build")
	}
	calls := 0
	copyAsCompiler := func(src, out string) []string { calls++; return []string{"cp", src, out} }
	bin, err := prog.Build(context.Background(), cache, copyAsCompiler)
	if err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(bin); err != nil || string(b) != string(prog.Source) {
		t.Fatalf("built program %q: %q, %v", bin, b, err)
	}
	again, err := prog.Build(context.Background(), cache, copyAsCompiler)
	if err != nil || again != bin || calls != 1 {
		t.Errorf("second build: %q, %v after %d compiler runs; want the cached %q after 1", again, err, calls, bin)
	}
	changed := CachedProgram{Name: "hello", Source: []byte("#!/bin/sh\necho changed\n"), Ext: ".sh"}
	if p, built := changed.Path(cache); built || p == bin {
		t.Errorf("a changed source reuses %q", p)
	}
	_, err = changed.Build(context.Background(), cache, func(src, out string) []string {
		return []string{"sh", "-c", "echo 'missing header.h' >&2; exit 3"}
	})
	var be *BuildError
	if !errors.As(err, &be) || be.Code != 3 || be.Output != "missing header.h\n" {
		t.Fatalf("failed compiler: %v, want a BuildError with status 3 and its output", err)
	}
	if _, built := changed.Path(cache); built {
		t.Error("a failed build left a program in the cache")
	}
}

func TestOneLineErrors(t *testing.T) {
	long := strings.Repeat("x", 200)
	for _, tc := range []struct {
		in, last, script string
	}{
		{"", "", ""},
		{"only line\n", "only line", "only line"},
		{"warming up\nrdma_write: unavailable: no device\n\n", "rdma_write: unavailable: no device", "warming up rdma_write: unavailable: no device"},
		{"a\tb  c", "a\tb  c", "a b c"},
		{long, long, long[:157] + "..."},
	} {
		if got := LastLine(tc.in); got != tc.last {
			t.Errorf("LastLine(%q) = %q, want %q", tc.in, got, tc.last)
		}
		if got := ScriptLine(tc.in); got != tc.script {
			t.Errorf("ScriptLine(%q) = %q, want %q", tc.in, got, tc.script)
		}
	}
}
