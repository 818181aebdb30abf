package customar

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

// Source is program/customar.cu, the program this package builds and runs.
//
//go:embed program/customar.cu
var Source []byte

// ProgramName is the built program's file name.
const ProgramName = "customar"

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
// arch is nvcc's -arch value; "" means "native" (the GPUs of this
// machine).
func BuildCommand(nvcc, arch, src, out string) []string {
	if arch == "" {
		arch = "native"
	}
	return []string{nvcc, "-O3", "-std=c++17", "-arch=" + arch, "-o", out, src}
}

// FindNVCC returns the nvcc to build with: $NVCC, else nvcc on PATH, else
// /usr/local/cuda/bin/nvcc; an error wrapping probes.ErrUnavailable when
// there is none.
func FindNVCC() (string, error) {
	if n := os.Getenv("NVCC"); n != "" {
		p, err := exec.LookPath(n)
		if err != nil {
			return "", fmt.Errorf("customar: %w: $NVCC is %q: %v", probes.ErrUnavailable, n, err)
		}
		return p, nil
	}
	if p, err := exec.LookPath("nvcc"); err == nil {
		return p, nil
	}
	const std = "/usr/local/cuda/bin/nvcc"
	if fi, err := os.Stat(std); err == nil && fi.Mode().IsRegular() {
		return std, nil
	}
	return "", fmt.Errorf("customar: %w: no nvcc (CUDA toolkit) on PATH or in /usr/local/cuda/bin to build %s", probes.ErrUnavailable, ProgramName)
}

// Build compiles customar.cu with nvcc into
// cacheDir/customar-<hash>-<arch>/customar, unless it is already there, and
// returns its path. No nvcc wraps probes.ErrUnavailable; a failed
// compilation is an error with nvcc's first lines.
func Build(ctx context.Context, cacheDir, arch string) (string, error) {
	if cacheDir == "" {
		cacheDir = DefaultCacheDir()
	}
	if arch == "" {
		arch = "native"
	}
	dir := filepath.Join(cacheDir, ProgramName+"-"+SourceHash()+"-"+arch)
	bin := filepath.Join(dir, ProgramName)
	if fi, err := os.Stat(bin); err == nil && fi.Mode().IsRegular() {
		return bin, nil
	}
	nvcc, err := FindNVCC()
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("customar: %w", err)
	}
	src := filepath.Join(dir, ProgramName+".cu")
	if err := os.WriteFile(src, Source, 0o644); err != nil {
		return "", fmt.Errorf("customar: %w", err)
	}
	// Build beside the target and rename, so an interrupted or concurrent
	// build never leaves a half-written program in the cache.
	tmp, err := os.CreateTemp(dir, ProgramName+".tmp*")
	if err != nil {
		return "", fmt.Errorf("customar: %w", err)
	}
	tmp.Close()
	defer os.Remove(tmp.Name())
	var out bytes.Buffer
	args := BuildCommand(nvcc, arch, src, tmp.Name())
	p, err := launch.Start(ctx, launch.Options{}, args[0], args[1:], &out, &out)
	if err != nil {
		return "", fmt.Errorf("customar: build: %w", err)
	}
	code, err := p.Wait()
	if err != nil {
		return "", fmt.Errorf("customar: build: %w", err)
	}
	if code != 0 {
		return "", fmt.Errorf("customar: build %s failed (%s): %s", ProgramName, launch.ShellJoin(args), firstLines(out.String(), 3))
	}
	if err := os.Rename(tmp.Name(), bin); err != nil {
		return "", fmt.Errorf("customar: %w", err)
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
