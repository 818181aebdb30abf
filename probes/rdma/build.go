package rdma

import (
	"bytes"
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/commlab/commlab/probes"
	"github.com/commlab/commlab/probes/launch"
)

// Source is program/rdma_write.c, the program this package builds and runs.
//
//go:embed program/rdma_write.c
var Source []byte

// ProgramName is the built program's file name.
const ProgramName = "rdma_write"

// SourceHash is the first 12 hex digits of the source's SHA-256: the cache
// key of the built program and the version a run records.
func SourceHash() string {
	h := sha256.Sum256(Source)
	return hex.EncodeToString(h[:])[:12]
}

// DefaultCacheDir is where Build puts the program when not told:
// $XDG_CACHE_HOME/commlab (or ~/.cache/commlab), else the temporary
// directory.
func DefaultCacheDir() string {
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "commlab")
	}
	return filepath.Join(os.TempDir(), "commlab-cache")
}

// BuildCommand is the compiler command line Build runs, for the record.
func BuildCommand(cc, src, out string) []string {
	return []string{cc, "-O2", "-Wall", "-o", out, src, "-libverbs", "-ldl"}
}

// Build compiles rdma_write.c with the C compiler on PATH ($CC, else cc)
// into cacheDir/rdma-<hash>/rdma_write, unless it is already there, and
// returns its path. A missing compiler or missing libibverbs headers or
// library wrap probes.ErrUnavailable.
func Build(ctx context.Context, cacheDir string) (string, error) {
	if cacheDir == "" {
		cacheDir = DefaultCacheDir()
	}
	dir := filepath.Join(cacheDir, "rdma-"+SourceHash())
	bin := filepath.Join(dir, ProgramName)
	if fi, err := os.Stat(bin); err == nil && fi.Mode().IsRegular() {
		return bin, nil
	}
	cc := os.Getenv("CC")
	if cc == "" {
		cc = "cc"
	}
	if _, err := exec.LookPath(cc); err != nil {
		return "", fmt.Errorf("rdma: %w: no C compiler (%s) on PATH to build %s", probes.ErrUnavailable, cc, ProgramName)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("rdma: %w", err)
	}
	src := filepath.Join(dir, ProgramName+".c")
	if err := os.WriteFile(src, Source, 0o644); err != nil {
		return "", fmt.Errorf("rdma: %w", err)
	}
	// Build beside the target and rename, so a concurrent build or an
	// interrupted one never leaves a half-written program in the cache.
	tmp, err := os.CreateTemp(dir, ProgramName+".tmp*")
	if err != nil {
		return "", fmt.Errorf("rdma: %w", err)
	}
	tmp.Close()
	defer os.Remove(tmp.Name())
	var out bytes.Buffer
	args := BuildCommand(cc, src, tmp.Name())
	p, err := launch.Start(ctx, launch.Options{}, args[0], args[1:], &out, &out)
	if err != nil {
		return "", fmt.Errorf("rdma: build: %w", err)
	}
	code, err := p.Wait()
	if err != nil {
		return "", fmt.Errorf("rdma: build: %w", err)
	}
	if code != 0 {
		msg := out.String()
		switch {
		case strings.Contains(msg, "infiniband/verbs.h"):
			return "", fmt.Errorf("rdma: %w: the libibverbs headers are not installed (apt-get install libibverbs-dev)", probes.ErrUnavailable)
		case strings.Contains(msg, "-libverbs"):
			return "", fmt.Errorf("rdma: %w: libibverbs is not installed (apt-get install libibverbs-dev)", probes.ErrUnavailable)
		}
		return "", fmt.Errorf("rdma: build %s failed: %s", ProgramName, firstLines(msg, 3))
	}
	if err := os.Rename(tmp.Name(), bin); err != nil {
		return "", fmt.Errorf("rdma: %w", err)
	}
	return bin, nil
}

// firstLines keeps the first n lines of s, joined by " | ", for a one-line
// error.
func firstLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, " | ")
}

// errUnavailable is what the program's exit status 3 says; reason is its
// stderr line.
func errUnavailable(stderr string) error {
	reason := strings.TrimSpace(stderr)
	if i := strings.LastIndex(reason, "\n"); i >= 0 {
		reason = reason[i+1:]
	}
	reason = strings.TrimPrefix(reason, ProgramName+": ")
	reason = strings.TrimPrefix(reason, "unavailable: ")
	if reason == "" {
		reason = ProgramName + " exited with status 3 (unavailable)"
	}
	return fmt.Errorf("rdma: %w: %s", probes.ErrUnavailable, reason)
}
