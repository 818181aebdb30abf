package launch

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// SourceHash is the first 12 hex digits of a source's SHA-256: the cache
// key of a program built from it and the version a run records.
func SourceHash(source []byte) string {
	h := sha256.Sum256(source)
	return hex.EncodeToString(h[:])[:12]
}

// DefaultCacheDir is where built programs go when not told:
// $XDG_CACHE_HOME/commlab (or ~/.cache/commlab), else the temporary
// directory.
func DefaultCacheDir() string {
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "commlab")
	}
	return filepath.Join(os.TempDir(), "commlab-cache")
}

// CachedProgram is a program commlab builds from source it embeds (the
// RDMA WRITE program, the custom all-reduce) into a cache folder named by
// the source's hash, so a changed source builds anew and an unchanged one
// never twice.
type CachedProgram struct {
	Name   string // the built program's file name, "rdma_write"
	Source []byte
	Ext    string // the source file's extension: ".c", ".cu"
	// Folder is the cache folder's name; "" is Name-Hash.
	Folder string
}

// Hash is SourceHash of the program's source: the cache key of the built
// program and the version a run records.
func (p CachedProgram) Hash() string { return SourceHash(p.Source) }

// BuildError is a compiler that ran and failed: its command and output,
// for the caller to say what is missing.
type BuildError struct {
	Command []string
	Code    int
	Output  string
}

func (e *BuildError) Error() string {
	return fmt.Sprintf("launch: %s exited with status %d: %s", ShellJoin(e.Command), e.Code, FirstLines(e.Output, 3))
}

// Path is where the program lives in cacheDir ("" is DefaultCacheDir),
// and whether it is built there.
func (p CachedProgram) Path(cacheDir string) (string, bool) {
	if cacheDir == "" {
		cacheDir = DefaultCacheDir()
	}
	folder := p.Folder
	if folder == "" {
		folder = p.Name + "-" + p.Hash()
	}
	bin := filepath.Join(cacheDir, folder, p.Name)
	fi, err := os.Stat(bin)
	return bin, err == nil && fi.Mode().IsRegular()
}

// Build writes the source into cacheDir/Folder and compiles it there with
// the command compile returns for its source and output paths, unless the
// program is already built; it returns the program's path. The compiler
// writes beside the target and the result is renamed into place, so an
// interrupted or concurrent build never leaves a half-written program in
// the cache. A compiler that fails returns a *BuildError.
func (p CachedProgram) Build(ctx context.Context, cacheDir string, compile func(src, out string) []string) (string, error) {
	bin, built := p.Path(cacheDir)
	if built {
		return bin, nil
	}
	dir := filepath.Dir(bin)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("launch: build: %w", err)
	}
	src := filepath.Join(dir, p.Name+p.Ext)
	if err := os.WriteFile(src, p.Source, 0o644); err != nil {
		return "", fmt.Errorf("launch: build: %w", err)
	}
	tmp, err := os.CreateTemp(dir, p.Name+".tmp*")
	if err != nil {
		return "", fmt.Errorf("launch: build: %w", err)
	}
	tmp.Close()
	defer os.Remove(tmp.Name())
	var out bytes.Buffer
	args := compile(src, tmp.Name())
	if len(args) == 0 {
		return "", errors.New("launch: build: no compiler command")
	}
	proc, err := Start(ctx, Options{}, args[0], args[1:], &out, &out)
	if err != nil {
		return "", fmt.Errorf("launch: build: %w", err)
	}
	code, err := proc.Wait()
	if err != nil {
		return "", fmt.Errorf("launch: build: %w", err)
	}
	if code != 0 {
		return "", &BuildError{Command: args, Code: code, Output: out.String()}
	}
	if err := os.Rename(tmp.Name(), bin); err != nil {
		return "", fmt.Errorf("launch: build: %w", err)
	}
	return bin, nil
}

// LastLine is the last non-empty line of s: what a program that failed
// printed last, its error as a rule.
func LastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndex(s, "\n"); i >= 0 {
		s = s[i+1:]
	}
	return s
}

// ScriptLine joins a script's error (or its last line) into one line cut
// to 160 bytes, for a banner or an error.
func ScriptLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 160 {
		s = s[:157] + "..."
	}
	return s
}

// FirstLines keeps the first n lines of s, joined by " | ", for a one-line
// error.
func FirstLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, " | ")
}
