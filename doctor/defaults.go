package doctor

import (
	"fmt"
	"strconv"
	"strings"
)

// The defaults of the PyTorch settings a hang depends on changed between
// releases; a default is only said for the versions it was read for.
// "measured" ranges come from PyTorch's own log on the lab's H200 (PyTorch
// 2.11.0+cu130, python3 on one GPU, nothing of these set:
// probes/recorded/data/torch-overlap-h200x1/cq-default.log, 2026-12-01);
// the others from the change that set the default, with its date, and say
// so. Versions no range covers are unknown, and the report says that
// instead of assuming.
type defaultRange struct {
	from, to string // inclusive version bounds ("2.2", "2.11"); "" is open
	value    string
	source   string
	measured bool
}

var torchDefaults = map[string][]defaultRange{
	"TORCH_NCCL_ASYNC_ERROR_HANDLING": {
		{"2.11", "2.11", "3", "PyTorch 2.11's own log prints TORCH_NCCL_ASYNC_ERROR_HANDLING: 3", true},
		{"2.2", "", "3", "pytorch/pytorch#110723 (2023-10-06) made 3 (SkipCleanUp) the default, before the 2.2 branch; not read at the v2.2.0 tag", false},
	},
	"TORCH_NCCL_DUMP_ON_TIMEOUT": {
		// pytorch#142260 (2024-12-06) left it off; pytorch#143446
		// (2024-12-17) turned it on; which release first shipped it was
		// not read at a tag, so only 2.11 is known.
		{"2.11", "2.11", "1", "PyTorch 2.11's own log prints TORCH_NCCL_DUMP_ON_TIMEOUT: 1", true},
	},
	"TORCH_FR_BUFFER_SIZE": {
		{"2.11", "2.11", "2000", "PyTorch 2.11's own log prints TORCH_NCCL_TRACE_BUFFER_SIZE: 2000 (pytorch/pytorch#142260, 2024-12-06, turned the buffer on for all)", true},
	},
	"TORCH_NCCL_ENABLE_TIMING": {
		// getCvarBool(TORCH_NCCL_ENABLE_TIMING, false) in every
		// ProcessGroupNCCL.cpp read, 2.2 to main.
		{"2.11", "2.11", "0", "PyTorch 2.11's own log prints TORCH_NCCL_ENABLE_TIMING: 0", true},
		{"2.2", "", "0", "ProcessGroupNCCL.cpp reads getCvarBool(TORCH_NCCL_ENABLE_TIMING, false) in every version read", false},
	},
	"TORCH_NCCL_NAN_CHECK": {
		{"2.11", "2.11", "0", "PyTorch 2.11's own log prints TORCH_NCCL_NAN_CHECK: 0", true},
	},
	"TORCH_NCCL_ENABLE_MONITORING": {
		{"2.11", "2.11", "1", "PyTorch 2.11's own log prints TORCH_NCCL_ENABLE_MONITORING (...): 1", true},
	},
	"TORCH_NCCL_BLOCKING_WAIT": {
		{"2.11", "2.11", "0", "PyTorch 2.11's own log prints TORCH_NCCL_BLOCKING_WAIT: 0", true},
	},
	"TORCH_NCCL_DESYNC_DEBUG": {
		{"2.11", "2.11", "0", "PyTorch 2.11's own log prints TORCH_NCCL_DESYNC_DEBUG: 0", true},
	},
	"TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC": {
		{"2.11", "2.11", "480", "PyTorch 2.11's own log prints TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC: 480", true},
	},
}

// torchrunSets are what torchrun's agent puts in every worker's
// environment when the user has not (torch/distributed/elastic/agent/
// server/local_elastic_agent.py: "TORCH_NCCL_ASYNC_ERROR_HANDLING":
// os.getenv(..., str(1))), so under torchrun 1 is in effect, under plain
// python PyTorch's default.
var torchrunSets = map[string]string{"TORCH_NCCL_ASYNC_ERROR_HANDLING": "1"}

// TorchSetting is one PyTorch setting as the job ran with it.
type TorchSetting struct {
	Name  string `json:"name"`
	Value string `json:"value,omitempty"`
	// Known is false when no evidence says and the version gives no
	// default we have read; Source says where Value comes from, or why it
	// is unknown.
	Known  bool   `json:"known"`
	Source string `json:"source"`
}

func (s TorchSetting) String() string {
	if !s.Known {
		return s.Name + " unknown: " + s.Source
	}
	return fmt.Sprintf("%s=%s (%s)", s.Name, s.Value, s.Source)
}

// TorchSetting says what value a PyTorch setting had in the job: set in
// its environment (or under an older name), printed by ProcessGroupNCCL
// in its log, set by torchrun, or PyTorch's default for the version the
// evidence names; else unknown, with the reason.
func (e *Evidence) TorchSetting(name string) TorchSetting {
	s := TorchSetting{Name: name}
	if v, ok := lookup(e.Env, name); ok {
		s.Value, s.Known, s.Source = v, true, "set in the job's environment ("+orDash(e.EnvSource)+")"
		return s
	}
	for _, alias := range append([]string{name}, aliasesOf(name)...) {
		if v, ok := e.TorchSettings[alias]; ok {
			s.Value, s.Known, s.Source = v, true, "printed by ProcessGroupNCCL in "+orDash(e.TorchSettingsSource)
			return s
		}
	}
	if v, ok := torchrunSets[name]; ok && e.Launcher == "torchrun" {
		s.Value, s.Known, s.Source = v, true, "torchrun sets it for its workers ("+e.LauncherWhy+")"
		return s
	}
	ver := e.TorchVersion
	if ver == "" {
		s.Source = "the PyTorch version is not in the evidence (give --torch VERSION)"
		return s
	}
	for _, r := range torchDefaults[name] {
		if versionIn(ver, r.from, r.to) {
			s.Value, s.Known = r.value, true
			s.Source = fmt.Sprintf("PyTorch %s's default: %s", shortVersion(ver), r.source)
			if _, ok := torchrunSets[name]; ok && e.Launcher == "" {
				s.Source += fmt.Sprintf("; under torchrun it is %s (torchrun sets it), and the evidence does not say how the job was started", torchrunSets[name])
			}
			return s
		}
	}
	s.Source = fmt.Sprintf("PyTorch %s's default for it has not been read (known for: %s)", shortVersion(ver), knownVersions(name))
	return s
}

// aliasesOf lists the older names PyTorch still reads for a setting.
func aliasesOf(name string) []string {
	var out []string
	for old, now := range renamed {
		if now == name {
			out = append(out, old)
		}
	}
	return out
}

func knownVersions(name string) string {
	var vs []string
	for _, r := range torchDefaults[name] {
		switch {
		case r.from == r.to:
			vs = append(vs, r.from)
		case r.to == "":
			vs = append(vs, r.from+" on")
		default:
			vs = append(vs, r.from+"-"+r.to)
		}
	}
	if len(vs) == 0 {
		return "none"
	}
	return strings.Join(vs, ", ")
}

// versionNumbers reads "2.11.0+cu130" as [2 11 0].
func versionNumbers(v string) []int {
	v = strings.TrimPrefix(strings.TrimSpace(v), "v")
	if i := strings.IndexAny(v, "+ -"); i >= 0 {
		v = v[:i]
	}
	var out []int
	for _, p := range strings.Split(v, ".") {
		digits := strings.TrimRightFunc(p, func(r rune) bool { return r < '0' || r > '9' })
		n, err := strconv.Atoi(digits)
		if err != nil {
			break
		}
		out = append(out, n)
	}
	return out
}

// compareVersions compares the numbers both give (so "2.11" equals
// "2.11.0"); ok is false when either is not a version.
func compareVersions(a, b string) (int, bool) {
	x, y := versionNumbers(a), versionNumbers(b)
	if len(x) == 0 || len(y) == 0 {
		return 0, false
	}
	for i := 0; i < len(x) && i < len(y); i++ {
		if x[i] != y[i] {
			if x[i] < y[i] {
				return -1, true
			}
			return 1, true
		}
	}
	return 0, true
}

// versionIn says whether v lies within from..to (inclusive at the
// precision the bounds give: "2.11" covers 2.11.x).
func versionIn(v, from, to string) bool {
	if from != "" {
		if c, ok := compareVersions(v, from); !ok || c < 0 {
			return false
		}
	}
	if to != "" {
		if c, ok := compareVersions(v, to); !ok || c > 0 {
			return false
		}
	}
	return true
}

// shortVersion is "2.11.0" of "2.11.0+cu130".
func shortVersion(v string) string {
	if i := strings.IndexAny(v, "+ "); i >= 0 {
		return v[:i]
	}
	return v
}

// timingSetting says whether the job recorded collective start events:
// TORCH_NCCL_ENABLE_TIMING, or what turns it on with it
// (TORCH_NCCL_DESYNC_DEBUG=1, TORCH_DISTRIBUTED_DEBUG=DETAIL;
// ProcessGroupNCCL.cpp).
func (e *Evidence) timingSetting() TorchSetting {
	s := e.TorchSetting("TORCH_NCCL_ENABLE_TIMING")
	if s.Known && truthy(s.Value) {
		return s
	}
	if d := e.TorchSetting("TORCH_NCCL_DESYNC_DEBUG"); d.Known && truthy(d.Value) {
		return TorchSetting{Name: s.Name, Value: "1", Known: true, Source: "TORCH_NCCL_DESYNC_DEBUG=" + d.Value + " turns timing on: " + d.Source}
	}
	if v, ok := e.Env["TORCH_DISTRIBUTED_DEBUG"]; ok && strings.EqualFold(v, "DETAIL") {
		return TorchSetting{Name: s.Name, Value: "1", Known: true, Source: "TORCH_DISTRIBUTED_DEBUG=DETAIL turns timing on"}
	}
	return s
}
