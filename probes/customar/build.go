package customar

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"os"
	"os/exec"

	"github.com/commlab/commlab/probes"
	"github.com/commlab/commlab/probes/launch"
)

//go:embed program/customar.cu
var source []byte

// Program is program/customar.cu, the program this package builds and
// runs: its name, its source and (Program.Hash) the version a run records.
var Program = launch.CachedProgram{Name: "customar", Source: source, Ext: ".cu"}

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
	return "", fmt.Errorf("customar: %w: no nvcc (CUDA toolkit) on PATH or in /usr/local/cuda/bin to build %s", probes.ErrUnavailable, Program.Name)
}

// Build compiles customar.cu with nvcc into
// cacheDir/customar-<hash>-<arch>/customar (launch.CachedProgram; "" is
// launch.DefaultCacheDir), unless it is already there, and returns its
// path. No nvcc wraps probes.ErrUnavailable; a failed compilation is an
// error with nvcc's first lines.
func Build(ctx context.Context, cacheDir, arch string) (string, error) {
	if arch == "" {
		arch = "native"
	}
	prog := Program
	prog.Folder = prog.Name + "-" + prog.Hash() + "-" + arch
	if bin, built := prog.Path(cacheDir); built {
		return bin, nil
	}
	nvcc, err := FindNVCC()
	if err != nil {
		return "", err
	}
	bin, err := prog.Build(ctx, cacheDir, func(src, out string) []string { return BuildCommand(nvcc, arch, src, out) })
	var be *launch.BuildError
	if errors.As(err, &be) {
		return "", fmt.Errorf("customar: build %s failed (%s): %s", Program.Name, launch.ShellJoin(be.Command), launch.FirstLines(be.Output, 3))
	}
	if err != nil {
		return "", fmt.Errorf("customar: %w", err)
	}
	return bin, nil
}
