package rdma

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"github.com/commlab/commlab/probes"
	"github.com/commlab/commlab/probes/launch"
)

//go:embed program/rdma_write.c
var source []byte

// Program is program/rdma_write.c, the program this package builds and
// runs: its name, its source and (Program.Hash) the version a run records.
var Program = launch.CachedProgram{Name: "rdma_write", Source: source, Ext: ".c"}

// BuildCommand is the compiler command line Build runs, for the record.
func BuildCommand(cc, src, out string) []string {
	return []string{cc, "-O2", "-Wall", "-o", out, src, "-libverbs", "-ldl"}
}

// Build compiles rdma_write.c with the C compiler on PATH ($CC, else cc)
// into cacheDir/rdma-<hash>/rdma_write (launch.CachedProgram; "" is
// launch.DefaultCacheDir), unless it is already there, and returns its
// path. A missing compiler or missing libibverbs headers or library wrap
// probes.ErrUnavailable.
func Build(ctx context.Context, cacheDir string) (string, error) {
	cc := os.Getenv("CC")
	if cc == "" {
		cc = "cc"
	}
	prog := Program
	prog.Folder = "rdma-" + prog.Hash()
	if bin, built := prog.Path(cacheDir); built {
		return bin, nil // the compiler is not needed
	}
	if _, err := exec.LookPath(cc); err != nil {
		return "", fmt.Errorf("rdma: %w: no C compiler (%s) on PATH to build %s", probes.ErrUnavailable, cc, Program.Name)
	}
	bin, err := prog.Build(ctx, cacheDir, func(src, out string) []string { return BuildCommand(cc, src, out) })
	var be *launch.BuildError
	switch {
	case errors.As(err, &be) && strings.Contains(be.Output, "infiniband/verbs.h"):
		return "", fmt.Errorf("rdma: %w: the libibverbs headers are not installed (apt-get install libibverbs-dev)", probes.ErrUnavailable)
	case errors.As(err, &be) && strings.Contains(be.Output, "-libverbs"):
		return "", fmt.Errorf("rdma: %w: libibverbs is not installed (apt-get install libibverbs-dev)", probes.ErrUnavailable)
	case errors.As(err, &be):
		return "", fmt.Errorf("rdma: build %s failed: %s", Program.Name, launch.FirstLines(be.Output, 3))
	case err != nil:
		return "", fmt.Errorf("rdma: %w", err)
	}
	return bin, nil
}

// errUnavailable is what the program's exit status 3 says; reason is its
// stderr line.
func errUnavailable(stderr string) error {
	reason := strings.TrimSpace(stderr)
	if i := strings.LastIndex(reason, "\n"); i >= 0 {
		reason = reason[i+1:]
	}
	reason = strings.TrimPrefix(reason, Program.Name+": ")
	reason = strings.TrimPrefix(reason, "unavailable: ")
	if reason == "" {
		reason = Program.Name + " exited with status 3 (unavailable)"
	}
	return fmt.Errorf("rdma: %w: %s", probes.ErrUnavailable, reason)
}
