package doctor

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/commlab/commlab/probes/launch"
)

// This file runs a launch plan's commands (commlab doctor --launcher ...
// --run), where launch.go only builds them. Under srun it also reads what
// Slurm says: a job Slurm refuses, one that waits in the queue for nodes
// that never start, one cut by its time limit each stop the plan with a
// verdict that names the cause and what was already collected under the
// shared folder, which stays. Where neither a GPU nor nccl-tests'
// all_reduce_perf is found, the sweep runs a CPU stand-in that measures
// nothing and says so.

// HostList reads the nodes named comma-separated ("a, b,c"), blanks
// dropped.
func HostList(list string) []string {
	var hosts []string
	for _, h := range strings.Split(list, ",") {
		if h = strings.TrimSpace(h); h != "" {
			hosts = append(hosts, h)
		}
	}
	return hosts
}

// ErrScheduler marks a plan that Slurm stopped: every error of
// RunCommands for a refused, never-started or cut job wraps it.
var ErrScheduler = errors.New("doctor: the scheduler stopped the plan")

// QueueWait is how long an srun job may wait in the queue for its nodes
// before the plan gives up on it ($COMMLAB_SRUN_QUEUE_WAIT, a Go duration,
// overrides it).
var QueueWait = 5 * time.Minute

// standInName is the program the sweep runs, replaced where no GPU exists.
const standInName = "all_reduce_perf"

// standIn is the CPU stand-in for all_reduce_perf: each rank says where it
// ran, on its output and in its NCCL log; nothing is measured, so no table
// and no NCCL line is printed.
const standIn = `#!/bin/sh
# commlab doctor's CPU stand-in for nccl-tests' all_reduce_perf, written
# where this machine has no GPU and no nccl-tests: it measures nothing.
line="# commlab CPU stand-in for all_reduce_perf (no GPU, no nccl-tests: nothing measured): rank ${SLURM_PROCID:-0} of ${SLURM_NTASKS:-1} on node ${SLURMD_NODENAME:-$(hostname)}, arguments: $*"
echo "$line"
# The rank's NCCL log, where NCCL would write it (%h the host, %p the pid):
# the same line, no NCCL line.
if [ -n "${NCCL_DEBUG_FILE:-}" ]; then
	log=$(echo "$NCCL_DEBUG_FILE" | sed "s/%h/$(hostname)/g; s/%p/$$/g")
	echo "$line" > "$log"
fi
`

// Carry prints the plan on stdout; with run, it prints it on stderr beside
// the commands' own output, runs them (RunCommands) and names the
// follow-up, which the caller runs next: stdout then carries the one
// report it writes.
func (p Plan) Carry(run bool, stdout, stderr io.Writer) error {
	if !run {
		p.WriteText(stdout)
		return nil
	}
	p.WriteText(stderr)
	if err := p.RunCommands(stderr); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "commlab doctor: reading everything: %s\n", ShellLine(p.FollowUp))
	return nil
}

// RunCommands runs the plan's commands one after the other, their output
// and a line naming each into w. A doctor on a node that exits 1 or 2 has
// found warnings or failures, which the follow-up reports: only a command
// that could not run, exited otherwise, or that Slurm stopped, stops the
// plan.
func (p Plan) RunCommands(w io.Writer) error {
	out := p.sharedDir()
	env := os.Environ()
	if out != "" && p.mentions(standInName) && noGPU() {
		if _, err := exec.LookPath(standInName); err != nil {
			dir, err := writeStandIn(out)
			if err != nil {
				return err
			}
			fmt.Fprintf(w, "commlab doctor: no GPU and no %s on this machine: the sweep runs a CPU stand-in (%s) that measures nothing; each rank's line goes to %s\n",
				standInName, filepath.Join(dir, standInName), sweepFile(out))
			env = withPath(env, dir)
		}
	}
	wait := QueueWait
	if d, err := time.ParseDuration(os.Getenv("COMMLAB_SRUN_QUEUE_WAIT")); err == nil && d > 0 {
		wait = d
	}
	for i, c := range p.Commands {
		fmt.Fprintf(w, "commlab doctor: running %s\n", ShellLine(c))
		if usesSrun(c) {
			if err := runUnderSlurm(c, env, w, out, fmt.Sprintf("commlab-doctor-%d-%d", os.Getpid(), i), wait); err != nil {
				return err
			}
			continue
		}
		cmd := exec.Command(c[0], c[1:]...)
		cmd.Env = env
		cmd.Stdout, cmd.Stderr = w, w
		if err := cmd.Run(); err != nil {
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() > 2 {
				return fmt.Errorf("%s: %w", c[0], err)
			}
		}
	}
	return nil
}

// sharedDir is the plan's Out: the folder above the nodes' reports.
func (p Plan) sharedDir() string {
	for _, o := range p.Outputs {
		if nodes, ok := strings.CutSuffix(o, "/<host>/report.json"); ok {
			return filepath.Dir(nodes)
		}
	}
	return ""
}

func (p Plan) mentions(word string) bool {
	for _, c := range p.Commands {
		if strings.Contains(strings.Join(c, " "), word) {
			return true
		}
	}
	return false
}

// noGPU reports whether this machine shows no NVIDIA GPU (no device node).
func noGPU() bool {
	_, err := os.Stat("/dev/nvidiactl")
	return err != nil
}

func writeStandIn(out string) (string, error) {
	dir := filepath.Join(out, "cpu-standin")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("doctor: the CPU stand-in: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, standInName), []byte(standIn), 0o755); err != nil {
		return "", fmt.Errorf("doctor: the CPU stand-in: %w", err)
	}
	return dir, nil
}

func withPath(env []string, dir string) []string {
	out := make([]string, 0, len(env)+1)
	path := dir
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = dir + string(os.PathListSeparator) + v
			continue
		}
		out = append(out, kv)
	}
	return append(out, "PATH="+path)
}

// usesSrun reports whether a plan command starts srun, itself or in a
// shell line.
func usesSrun(c []string) bool {
	return len(c) > 0 && (filepath.Base(c[0]) == "srun" || len(c) == 3 && c[0] == "sh" && strings.HasPrefix(c[2], "srun "))
}

// runUnderSlurm runs one srun command under a job name of its own,
// watching the queue: a job still pending after wait is cancelled. When
// the command fails, what srun said (on the pipe, or in the sweep's file)
// gives the verdict.
func runUnderSlurm(c, env []string, w io.Writer, out, name string, wait time.Duration) error {
	var said launch.SyncBuffer
	cmd := exec.Command(c[0], c[1:]...)
	cmd.Env = append(append([]string(nil), env...), "SLURM_JOB_NAME="+name)
	cmd.Stdout, cmd.Stderr = io.MultiWriter(w, &said), io.MultiWriter(w, &said)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("%s: %w", c[0], err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	deadline := time.NewTimer(wait)
	defer deadline.Stop()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	pendingReason, gaveUp := "", false
	var err error
wait:
	for {
		select {
		case err = <-done:
			break wait
		case <-tick.C:
			if state, reason := jobState(name); state == "PENDING" {
				pendingReason = reason
			}
		case <-deadline.C:
			if state, reason := jobState(name); state == "PENDING" {
				pendingReason, gaveUp = reason, true
				_ = exec.Command("scancel", "--name", name).Run()
			}
		}
	}
	text := said.String()
	if out != "" && strings.Contains(strings.Join(c, " "), sweepFile(out)) {
		if b, rerr := os.ReadFile(sweepFile(out)); rerr == nil {
			text += string(b)
		}
	}
	if gaveUp {
		return scheduled(out, "srun's job waited %v in the queue and never started (Slurm's reason: %s): a node asked for is down, never came up, or the partition has fewer nodes than asked (sinfo: %s)",
			wait, orUnknown(pendingReason), nodeStates())
	}
	if verdict := slurmVerdict(text); verdict != "" {
		return scheduled(out, "%s", verdict)
	}
	if err != nil {
		// One slurmstepd prints the time-limit line, on an I/O stream srun
		// may already be closing: the job's end state in the controller is
		// the cause that does not depend on that line arriving.
		if verdict := endStateVerdict(endState(name, time.Minute)); verdict != "" {
			return scheduled(out, "%s", verdict)
		}
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() > 2 {
			return fmt.Errorf("%s: %w", c[0], err)
		}
	}
	return nil
}

// jobState is the state and reason squeue gives the job of that name ("",
// "" when it is not queued).
func jobState(name string) (state, reason string) {
	b, err := exec.Command("squeue", "-h", "--name", name, "-o", "%T|%r").Output()
	if err != nil {
		return "", ""
	}
	line, _, _ := strings.Cut(strings.TrimSpace(string(b)), "\n")
	state, reason, _ = strings.Cut(line, "|")
	return state, reason
}

// endState is the controller's line for a job that has ended, "ID|STATE|
// REASON|NODES": squeue keeps ended jobs for MinJobAge (300 s unless
// set), sacct where accounting is on; "" when neither knows the job. A
// job still COMPLETING (its nodes killing what is left, KillWait) is
// waited for, up to wait.
func endState(name string, wait time.Duration) string {
	deadline := time.Now().Add(wait)
	for {
		b, err := exec.Command("squeue", "-h", "-t", "all", "--name", name, "-o", "%i|%T|%r|%N").Output()
		if err != nil {
			break
		}
		line, _, _ := strings.Cut(strings.TrimSpace(string(b)), "\n")
		if line == "" {
			break
		}
		if f := strings.Split(line, "|"); len(f) < 2 || f[1] != "COMPLETING" || time.Now().After(deadline) {
			return line
		}
		time.Sleep(200 * time.Millisecond)
	}
	if b, err := exec.Command("sacct", "-n", "-X", "-P", "--name", name, "-o", "JobID,State,Reason,NodeList").Output(); err == nil {
		line, _, _ := strings.Cut(strings.TrimSpace(string(b)), "\n")
		return line
	}
	return ""
}

// endStateVerdict reads an endState line into the cause that stopped the
// job, "" when the job ended on its own (COMPLETED, FAILED: the tasks'
// exit, which the follow-up reports) or the line is not one.
func endStateVerdict(line string) string {
	f := strings.Split(strings.TrimSpace(line), "|")
	if len(f) != 4 || f[0] == "" {
		return ""
	}
	id, reason, nodes := f[0], f[2], orUnknown(f[3])
	// sacct writes "CANCELLED by 1000"; squeue the bare state.
	state, _, _ := strings.Cut(f[1], " ")
	if state == "COMPLETING" && reason == "TimeLimit" {
		state = "TIMEOUT" // what it ends in, waited for too long
	}
	cause, ok := endStateCauses[state]
	if !ok {
		return ""
	}
	if state == "CANCELLED" {
		state += " (reason " + orUnknown(reason) + ")"
	}
	return fmt.Sprintf("Slurm ended job %s on %s in state %s: %s", id, nodes, state, cause)
}

// endStateCauses are the end states of a job that Slurm stopped, and what
// each says of the cause.
var endStateCauses = map[string]string{
	"TIMEOUT":       "its time limit (SLURM_TIMELIMIT, or the partition's) ran out before it finished",
	"DEADLINE":      "its --deadline passed before it finished",
	"NODE_FAIL":     "a node stopped answering the controller (sinfo -R gives the reason)",
	"BOOT_FAIL":     "a node failed to boot",
	"OUT_OF_MEMORY": "a task went over its memory limit (--mem, --mem-per-cpu)",
	"PREEMPTED":     "a job of higher priority took its nodes",
	"CANCELLED":     "scancel or an administrator stopped it",
}

// nodeStates is sinfo's line per node ("node1 idle, node2 down*").
func nodeStates() string {
	b, err := exec.Command("sinfo", "-h", "-N", "-o", "%N %T").Output()
	if err != nil {
		return "no answer"
	}
	return strings.Join(strings.Split(strings.TrimSpace(string(b)), "\n"), ", ")
}

func orUnknown(s string) string {
	if s == "" {
		return "not known"
	}
	return s
}

var (
	badPartition = regexp.MustCompile(`invalid partition specified: (\S+)`)
	slurmRefused = regexp.MustCompile(`Unable to allocate resources: ([^\n]+)`)
	timeLimit    = regexp.MustCompile(`\*\*\* (?:STEP|JOB) (\S+) ON (\S+) CANCELLED AT (\S+) DUE TO TIME LIMIT \*\*\*`)
	notFound     = regexp.MustCompile(`execve\(\): ([^:]+): No such file or directory`)
)

// slurmVerdict reads what srun and slurmstepd printed for a cause that
// stops the plan; "" when they name none.
func slurmVerdict(text string) string {
	if m := badPartition.FindStringSubmatch(text); m != nil {
		return fmt.Sprintf("no such partition %q: Slurm refused the job (sinfo -s lists the partitions; the plan takes SLURM_PARTITION from the environment)", m[1])
	}
	if m := timeLimit.FindStringSubmatch(text); m != nil {
		return fmt.Sprintf("Slurm cut %s on %s at %s: its time limit (SLURM_TIMELIMIT, or the partition's) ran out before it finished", m[1], m[2], m[3])
	}
	if m := slurmRefused.FindStringSubmatch(text); m != nil && !strings.Contains(m[1], "already completing") {
		return "Slurm refused the job: " + strings.TrimSpace(m[1])
	}
	if m := notFound.FindStringSubmatch(text); m != nil {
		return fmt.Sprintf("the nodes have no %s on their PATH: install it there (or give the doctor's binary as the nodes see it)", strings.TrimSpace(m[1]))
	}
	return ""
}

// scheduled is ErrScheduler with the verdict and what stays collected
// under out.
func scheduled(out, format string, a ...any) error {
	return fmt.Errorf("%w: %s; %s", ErrScheduler, fmt.Sprintf(format, a...), collected(out))
}

// collected says what the plan left under out so far, which stays.
func collected(out string) string {
	if out == "" {
		return "nothing collected"
	}
	reports, _ := filepath.Glob(filepath.Join(nodesDir(out), "*", "report.json"))
	var nodes []string
	for _, r := range reports {
		nodes = append(nodes, filepath.Base(filepath.Dir(r)))
	}
	parts := []string{strconv.Itoa(len(nodes)) + " node report(s) in " + nodesDir(out)}
	if len(nodes) > 0 {
		parts[0] += " (" + strings.Join(nodes, ", ") + ")"
	}
	if fi, err := os.Stat(sweepFile(out)); err == nil && fi.Size() > 0 {
		parts = append(parts, "the sweep's output in "+sweepFile(out))
	}
	return "kept: " + strings.Join(parts, "; ")
}
