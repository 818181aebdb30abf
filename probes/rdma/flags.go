package rdma

import (
	"errors"
	"fmt"
	"io"

	"github.com/commlab/commlab/probes"
	"github.com/commlab/commlab/probes/launch"
)

// The checks of what the commlab command's flags set (commlab probe
// rdma-write, commlab probe perftest): their errors name the flags.

// errBothSides: --server and --connect were both given.
var errBothSides = errors.New("--server and --connect name the two machines' sides: give one")

// CheckFlags checks the settings commlab probe rdma-write's flags gave,
// gpuIndex its --gpu-index, before anything is built or run.
func (cfg Config) CheckFlags(gpuIndex int) error {
	if cfg.Iters <= 0 || cfg.Warmup < 0 || cfg.Timeout <= 0 || gpuIndex < 0 {
		return errors.New("--iters and --timeout must be positive, --warmup and --gpu-index not negative")
	}
	if cfg.Listen != "" && cfg.Connect != "" {
		return errBothSides
	}
	_, err := launch.Command(cfg.Launch, Program.Name, nil)
	return err
}

// CheckFlags checks the settings commlab probe perftest's flags gave,
// before any tool runs; a perftest tool that is not installed here is no
// error yet (a dry run or a launcher may not need it here).
func (cfg PerftestConfig) CheckFlags() error {
	if cfg.Iters < 0 || cfg.Timeout <= 0 || cfg.UseCUDA < -1 {
		return errors.New("--iters must not be negative, --timeout must be positive, --use-cuda a CUDA device or -1")
	}
	if cfg.Listen != "" && cfg.Connect != "" {
		return errBothSides
	}
	if cfg.All && len(cfg.Sizes) > 0 {
		return errors.New("--all runs every size: give it or sizes, not both")
	}
	if _, err := cfg.Check(); err != nil && !errors.Is(err, probes.ErrUnavailable) {
		return err
	}
	return nil
}

// WritePerftestCommands prints the server and client command lines a run
// of cfg would start for its first size (commlab probe perftest
// --dry-run).
func WritePerftestCommands(w io.Writer, cfg PerftestConfig) error {
	size := int64(0)
	if len(cfg.Sizes) > 0 {
		size = cfg.Sizes[0]
	}
	server, client, err := PerftestCommands(cfg, size)
	if err != nil {
		return err
	}
	if server != nil {
		fmt.Fprintln(w, "server:", launch.ShellJoin(server))
	}
	if client != nil {
		fmt.Fprintln(w, "client:", launch.ShellJoin(client))
	}
	return nil
}
