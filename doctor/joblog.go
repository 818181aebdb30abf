package doctor

// This file reads what a job's log and environment say besides NCCL's
// own lines: the settings PyTorch's ProcessGroupNCCL prints at init, and
// whether torchrun launched the job.

import (
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

// launcherFromLog tells torchrun from the lines its elastic agent prints.
func launcherFromLog(text string) (string, string) {
	for _, sign := range []string{"torch/distributed/run.py", "torch.distributed.elastic", "torchelastic"} {
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
