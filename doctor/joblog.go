package doctor

// This file reads what a job's log and environment say besides NCCL's
// own lines: the settings PyTorch's ProcessGroupNCCL prints at init, and
// whether torchrun launched the job.

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
)

var (
	// ProcessGroupNCCL's init lines: "TORCH_NCCL_DUMP_ON_TIMEOUT: 1",
	// "TORCH_NCCL_ENABLE_MONITORING (Whether to kill ...): 1",
	// "NCCL version: 2.28.9" (ProcessGroupNCCL.cpp, PyTorch 2.11).
	reTorchSetting = regexp.MustCompile(`\b(TORCH_[A-Z0-9_]+)(?: \([^)]*\))?: ([^,\s]+)`)
	reTorchNCCL    = regexp.MustCompile(`ProcessGroupNCCL environments: NCCL version: ([0-9.]+)`)
)

// TorchSettingsFromLog reads the settings PyTorch's ProcessGroupNCCL
// prints when a process group starts (with TORCH_CPP_LOG_LEVEL=INFO, or in
// its errors): effective values, defaults included. The NCCL version it
// names is kept as "NCCL_VERSION_LOADED".
func TorchSettingsFromLog(text string) map[string]string {
	out := map[string]string{}
	for _, line := range strings.Split(text, "\n") {
		if !strings.Contains(line, "ProcessGroupNCCL") && !strings.Contains(line, "HeartbeatMonitor") {
			continue
		}
		for _, m := range reTorchSetting.FindAllStringSubmatch(line, -1) {
			out[m[1]] = m[2]
		}
		if m := reTorchNCCL.FindStringSubmatch(line); m != nil {
			out["NCCL_VERSION_LOADED"] = m[1]
		}
	}
	return out
}

// launcherSigns are what torchrun's elastic agent prints.
var launcherSigns = []string{"torch/distributed/run.py", "torch.distributed.elastic", "torchelastic"}

// jobLogLines is an io.Writer that keeps, of the text written to it, only
// the lines TorchSettingsFromLog and launcherFromLog read, up to
// maxJobLogKept bytes: a job's log streams through it on its way to the
// NCCL parser.
type jobLogLines struct {
	partial []byte
	kept    strings.Builder
}

// maxJobLogKept bounds the PyTorch lines kept: each rank prints its
// settings once, a few hundred bytes, so 4 MiB holds thousands of ranks.
const maxJobLogKept = 4 << 20

func (j *jobLogLines) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			if len(j.partial) < 64<<10 {
				j.partial = append(j.partial, p[:min(len(p), 64<<10-len(j.partial))]...)
			}
			break
		}
		j.line(append(j.partial, p[:i]...))
		j.partial, p = j.partial[:0], p[i+1:]
	}
	return n, nil
}

// flush reads a last line that has no newline.
func (j *jobLogLines) flush() {
	if len(j.partial) > 0 {
		j.line(j.partial)
		j.partial = j.partial[:0]
	}
}

func (j *jobLogLines) line(l []byte) {
	if j.kept.Len()+len(l) >= maxJobLogKept || !jobLogLineKept(l) {
		return
	}
	j.kept.Write(l)
	j.kept.WriteByte('\n')
}

func jobLogLineKept(l []byte) bool {
	if bytes.Contains(l, []byte("ProcessGroupNCCL")) || bytes.Contains(l, []byte("HeartbeatMonitor")) {
		return true
	}
	for _, sign := range launcherSigns {
		if bytes.Contains(l, []byte(sign)) {
			return true
		}
	}
	return false
}

// launcherFromLog tells torchrun from the lines its elastic agent prints.
func launcherFromLog(text string) (string, string) {
	for _, sign := range launcherSigns {
		if strings.Contains(text, sign) {
			return "torchrun", fmt.Sprintf("%q lines", sign)
		}
	}
	return "", ""
}

// launcherFromEnv tells torchrun from the variables its agent sets in
// every worker (TORCHELASTIC_RUN_ID, TORCHELASTIC_RESTART_COUNT; local
// elastic agent).
func launcherFromEnv(env map[string]string) (string, string) {
	for _, k := range []string{"TORCHELASTIC_RUN_ID", "TORCHELASTIC_RESTART_COUNT", "TORCHELASTIC_MAX_RESTARTS"} {
		if _, ok := env[k]; ok {
			return "torchrun", k + " is set (torchrun's agent sets it in every worker)"
		}
	}
	return "", ""
}
