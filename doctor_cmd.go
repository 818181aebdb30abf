package main

// commlab doctor: the series' method on one machine, in one command and one
// report, and `commlab doctor --nccl-tests FILE`, the curve doctor of
// chapter 6 on one busbw curve. Gathering and reading the evidence, the
// checks, the launch plans and the report are doctor's and
// doctor/report's; this file reads the flags and prints.

import (
	"flag"
	"io"
	"os"

	"github.com/commlab/commlab/probes/cli"

	"github.com/commlab/commlab/cells"
	"github.com/commlab/commlab/doctor"
)

var doctorUsage = []string{
	"usage: commlab doctor [--out DIR] [--json] [--topo F --lspci F --nccl-log LOG --nccl-tests F --fr DIR --stacks DIR --dmesg F --trace TRACE.json --env F --torch V --baseline F]",
	"       commlab doctor --nccl-tests FILE [--json] [--preset P ...]   (one busbw curve: see commlab doctor --nccl-tests -h)",
	"       commlab doctor --launcher mpirun|srun|torchrun --nodes N --per-node G --out SHARED_DIR [--hostfile F | --hosts a,b | --master H:P] [--run]",
	"On a GPU machine with no files given it probes: topology (NVML, sysfs), PCI facts, copy bandwidth, an NCCL sweep with its log.",
	"Exit status: 0 every check ok or skipped, 1 warnings, 2 failures (or bad input).",
}

// runDoctor is the full doctor, or the curve doctor when --nccl-tests is
// its one input: that one's flag set is its own, under the same name.
func runDoctor(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) int {
	if doctor.CurveOnly(args) {
		return runDoctorCurve(cli.NewFlags(fs.Name(), stderr, doctor.CurveUsage...), args, stdout, stderr)
	}
	var f doctor.Flags
	f.AddFlags(fs)
	if status, ok := cli.ParseOnly(fs, args, stderr); !ok {
		return status
	}
	if f.Launching() {
		return doctorLaunch(fs, &f, stdout, stderr)
	}
	out, err := f.MakeOutDir()
	if err != nil {
		return cli.Fail(fs, stderr, cli.ExitBadInput, "%v", err)
	}
	ev, err := doctor.ReadFiles(f.Files)
	if err != nil {
		return cli.Fail(fs, stderr, statusOf(err), "%v", err)
	}
	r, err := doctor.Examine(ev, doctor.Gather{Out: out, Quick: f.Quick, Progress: cli.NewProgressBar(stderr).Update}, f.Live || !f.Files.Any())
	if err != nil {
		return cli.Fail(fs, stderr, cli.ExitFailed, "%v", err)
	}
	r.Command = doctor.ShellLine(cli.CommandLine(fs, args))
	if f.Baseline != "" {
		if err := r.CompareBaselineFile(f.Baseline); err != nil {
			return cli.Fail(fs, stderr, cli.ExitBadInput, "%v", err)
		}
	}
	if err := cells.ShowDoctorReport(r, out, f.JSON, stdout, stderr); err != nil {
		return cli.Fail(fs, stderr, cli.ExitFailed, "%v", err)
	}
	return r.ExitCode
}

// doctorLaunch prints (or, with --run, runs) the commands that take the
// doctor across nodes through the user's launcher, and the follow-up that
// reads what they leave into one report.
func doctorLaunch(fs *flag.FlagSet, f *doctor.Flags, stdout, stderr io.Writer) int {
	exe, _ := os.Executable()
	plan, err := f.LaunchSettings(exe).Plan()
	if err != nil {
		return cli.Fail(fs, stderr, cli.ExitBadInput, "%v", err)
	}
	if err := plan.Carry(f.Run, stdout, stderr); err != nil {
		return cli.Fail(fs, stderr, cli.ExitFailed, "%v", err)
	}
	if !f.Run {
		return 0
	}
	return dispatch(plan.FollowUp[1:], stdout, stderr)
}

// runDoctorCurve runs the curve doctor. Its exit status is doctor.ExitCode
// of the verdicts (0 fine, 1 warnings, 2 a failure), or 2 for bad input.
func runDoctorCurve(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) int {
	var c doctor.CurveFlags
	c.AddFlags(fs)
	if status, ok := cli.ParseOnly(fs, args, stderr); !ok {
		return status
	}
	if c.File == "" {
		return cli.Fail(fs, stderr, cli.ExitBadInput, "--nccl-tests FILE is required")
	}
	if c.File == "-h" || c.File == "-help" || c.File == "--help" {
		// `commlab doctor --nccl-tests -h`, as commlab doctor -h says: the
		// flag took -h as its value.
		fs.Usage()
		return 0
	}
	out, err := c.Judge(fs, stdin)
	if err != nil {
		return cli.Fail(fs, stderr, cli.ExitBadInput, "%v", err)
	}
	if err := out.Write(stdout, c.JSON); err != nil {
		return cli.Fail(fs, stderr, cli.ExitFailed, "%v", err)
	}
	return out.Exit
}
