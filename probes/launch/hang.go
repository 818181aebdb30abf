package launch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strconv"
	"strings"
)

// HangScenarios are the hangs the script stages: sizes that differ,
// collectives in a different order, a different count, a send without its
// receive, two process groups waiting on each other, the core question
// (64 ranks, one stuck in its data loader at step 3000), and every rank in
// the same collective with one rank's process killed inside it ("killed")
// or frozen there as if its network were cut ("netcut").
var HangScenarios = []string{"size", "order", "count", "unpaired", "two_comms", "core", "killed", "netcut"}

// HangOptions are the driver's flags (hang_torch.py run ...). Zero values
// leave the script's defaults.
type HangOptions struct {
	Scenario string
	// Out is the folder everything is written under.
	Out string
	// NProc is the number of ranks (2; 64 for core; 4 for killed and
	// netcut).
	NProc int
	// TimeoutS is init_process_group's timeout, seconds (15).
	TimeoutS float64
	// Steps, HangAt and StuckRank shape the core scenario (3000, 3000,
	// 37); HangAt and StuckRank also the step and the rank that killed
	// and netcut strike (3000, NProc/2).
	Steps, HangAt, StuckRank int
	// DeadlineS ends the ranks after this many seconds (150).
	DeadlineS float64
}

// Args returns the driver's command-line arguments after the script name.
func (o HangOptions) Args() ([]string, error) {
	if !slices.Contains(HangScenarios, o.Scenario) {
		return nil, fmt.Errorf("launch: hang scenario %q: want one of %s", o.Scenario, strings.Join(HangScenarios, ", "))
	}
	if o.Out == "" {
		return nil, fmt.Errorf("launch: hang lab: an output folder is needed")
	}
	args := []string{"run", "--scenario", o.Scenario, "--out", o.Out}
	num := func(flag string, v float64) {
		if v > 0 {
			args = append(args, flag, strconv.FormatFloat(v, 'g', -1, 64))
		}
	}
	num("--nproc", float64(o.NProc))
	num("--timeout", o.TimeoutS)
	num("--steps", float64(o.Steps))
	num("--hang-at", float64(o.HangAt))
	if o.StuckRank > 0 {
		args = append(args, "--stuck-rank", strconv.Itoa(o.StuckRank))
	}
	num("--deadline", o.DeadlineS)
	return args, nil
}

// RunHangLab writes the script into a temporary folder and runs its driver
// with python3 (which must have torch), its progress going to stdout and
// stderr and its results under o.Out. It fails with ErrNotInstalled when
// python3 is absent; a python3 without torch fails when the ranks start.
func RunHangLab(ctx context.Context, o HangOptions, stdout, stderr io.Writer) error {
	args, err := o.Args()
	if err != nil {
		return err
	}
	_, err = HangLab.Run(ctx, Options{}, args, stdout, stderr)
	return err
}

// HangLabReady says whether python3 here finds torch, without importing it:
// an import of torch takes seconds, and the hang lab's ranks import it
// anyway, so a torch that is there but cannot start them (no gloo) fails
// the run itself. TorchAvailable is the full check.
func HangLabReady(ctx context.Context) error {
	cmd, _, err := command(ctx, Options{}, []string{"python3", "-c", "import importlib.util, sys; sys.exit(0 if importlib.util.find_spec('torch') else 3)"})
	if err != nil {
		return err
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) && exit.ExitCode() == 3 {
			return fmt.Errorf("launch: python3 has no torch")
		}
		return fmt.Errorf("launch: python3 has no torch: %w: %s", err, strings.TrimSpace(string(out)))
	}
	return nil
}
