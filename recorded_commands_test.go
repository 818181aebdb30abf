package main

import (
	"bytes"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/commlab/commlab/probes"
	"github.com/commlab/commlab/probes/recorded"
)

// publicTools are the programs a recording may name instead of a commlab
// verb: the nccl-tests and perftest binaries, NVIDIA's nvbandwidth, and
// Python, PyTorch's torchrun or bash running a script of this repository.
var publicTools = regexp.MustCompile(`^(?:\w+_perf(?:_mpi)?|nvbandwidth|ib_(?:write|read|send)_(?:bw|lat)|ib_atomic_(?:bw|lat)|torchrun|python3?|bash)$`)

// commandNotKept is the one way a recording may say its command was lost:
// Settings[recorded.NotKept] holds why.
const commandNotKept = recorded.NotKept

// recordedRuns are every recorded run commlab carries or its tests read,
// by name: probes/recorded's runs and hang labs, and the doctor's
// recordings.
func recordedRuns(t *testing.T) map[string]*probes.Run {
	t.Helper()
	runs := map[string]*probes.Run{}
	for _, n := range recorded.List() {
		r, err := recorded.Load(n)
		if err != nil {
			t.Fatal(err)
		}
		runs[n] = r
	}
	for _, n := range recorded.HangLabs() {
		r, err := recorded.HangLabRun(n)
		if err != nil {
			t.Fatal(err)
		}
		runs["hang/"+n] = r
	}
	files, _ := filepath.Glob("doctor/recorded/*/*.json")
	for _, f := range files {
		r, err := probes.LoadRun(f)
		if err != nil || r.Kind == "" {
			continue // a topology or a dump, not a run
		}
		runs[f] = r
	}
	return runs
}

// TestRecordedCommandsExist holds every recording to a command a reader
// can type to make it again: a commlab verb whose flags parse (checked by
// running it with --help after them), or a public tool, with any script
// it runs found in this repository. A recording whose command was not
// kept says so in Settings["command_not_kept"].
func TestRecordedCommandsExist(t *testing.T) {
	runs := recordedRuns(t)
	if len(runs) < 50 {
		t.Fatalf("%d recorded runs found", len(runs))
	}
	for _, name := range slicesSorted(runs) {
		r := runs[name]
		if why := r.Settings[commandNotKept]; why != "" {
			if len(r.Command) != 0 {
				t.Errorf("%s: says its command was not kept (%s) but has one: %q", name, why, r.Command)
			}
			continue
		}
		if err := checkCommand(recorded.Command(r.Command)); err != "" {
			t.Errorf("%s: %s", name, err)
		}
	}
}

// checkCommand says what is wrong with cmd, "" when nothing.
func checkCommand(cmd []string) string {
	line := strings.Join(cmd, " ")
	if len(cmd) == 0 {
		return "no command (and no " + commandNotKept + " setting)"
	}
	for len(cmd) > 0 && (cmd[0] == "env" || strings.Contains(cmd[0], "=") && !strings.HasPrefix(cmd[0], "-")) {
		cmd = cmd[1:] // env VAR=value ...
	}
	if len(cmd) == 0 {
		return "no program in " + line
	}
	if cmd[0] == "commlab" {
		args := slices.Clone(cmd[1:])
		if i := slices.Index(args, "--"); i >= 0 {
			args = slices.Insert(args, i, "--help")
		} else {
			args = append(args, "--help")
		}
		var out, errb bytes.Buffer
		status := dispatch(args, &out, &errb)
		if status != 0 || strings.Contains(errb.String(), "not defined") || strings.Contains(errb.String(), "invalid") || strings.Contains(errb.String(), "unknown") {
			return "command " + strconvQuote(line) + " does not parse: " + firstLine(errb.String())
		}
		return ""
	}
	if !publicTools.MatchString(path.Base(cmd[0])) {
		return "command " + strconvQuote(line) + " is neither a commlab verb nor a named public tool"
	}
	if path.Base(cmd[0]) != cmd[0] {
		return "command " + strconvQuote(line) + " names a folder of the recording machine"
	}
	if strings.HasPrefix(cmd[0], "python") || cmd[0] == "torchrun" || cmd[0] == "bash" {
		for _, a := range cmd[1:] {
			if strings.HasSuffix(a, ".py") || strings.HasSuffix(a, ".sh") {
				if _, err := os.Stat(a); err != nil {
					return "command " + strconvQuote(line) + " runs " + a + ", not a script of this repository (by its path from the repository's root)"
				}
				return ""
			}
		}
		return "command " + strconvQuote(line) + " runs no script"
	}
	return ""
}

// TestRecordedNamesSayTheGPU holds that a recording named for a GPU
// (h200x1, h100x2) ran on that GPU.
func TestRecordedNamesSayTheGPU(t *testing.T) {
	tag := regexp.MustCompile(`\b([a-z]\d{3})x(\d+)\b`)
	for name, r := range recordedRuns(t) {
		m := tag.FindStringSubmatch(strings.ReplaceAll(name, "-", " "))
		if m == nil {
			continue
		}
		if !strings.Contains(strings.ToLower(r.GPUModel), m[1]) {
			t.Errorf("%s: named %sx%s, ran on %q", name, m[1], m[2], r.GPUModel)
		}
	}
}

func slicesSorted(m map[string]*probes.Run) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

func strconvQuote(s string) string { return "\"" + s + "\"" }
