package doctor

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// pytorchEnvSource is where the renames and defaults below are read:
// ProcessGroupNCCL.hpp lists each setting's names, the current one first,
// deprecated aliases after it (getCvar reads them in order and warns about
// the old ones); FlightRecorder.hpp lists TORCH_FR_BUFFER_SIZE before
// TORCH_NCCL_TRACE_BUFFER_SIZE; ProcessGroupNCCL.cpp sets the heartbeat
// default (60 * 8 s) and ProcessGroupNCCL.hpp the collective timeout
// (kProcessGroupNCCLDefaultTimeout, 10 minutes). PyTorch 2.11 on the lab's
// H200 prints "TORCH_NCCL_TRACE_BUFFER_SIZE is deprecated"
// (doctor/recorded/h200x2/torch-capture-stdout.txt).
const pytorchEnvSource = "pytorch/pytorch torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp, ProcessGroupNCCL.cpp, FlightRecorder.hpp"

// renamed maps a deprecated variable to the name PyTorch reads first.
var renamed = map[string]string{
	"TORCH_NCCL_TRACE_BUFFER_SIZE":    "TORCH_FR_BUFFER_SIZE",
	"TORCH_NCCL_TRACE_CPP_STACK":      "TORCH_FR_CPP_STACK",
	"NCCL_BLOCKING_WAIT":              "TORCH_NCCL_BLOCKING_WAIT",
	"NCCL_ASYNC_ERROR_HANDLING":       "TORCH_NCCL_ASYNC_ERROR_HANDLING",
	"NCCL_DESYNC_DEBUG":               "TORCH_NCCL_DESYNC_DEBUG",
	"NCCL_ENABLE_TIMING":              "TORCH_NCCL_ENABLE_TIMING",
	"TORCH_NCCL_DEBUG_INFO_TEMP_FILE": "TORCH_FR_DUMP_TEMP_FILE",
}

// Defaults PyTorch uses when the variables are unset (pytorchEnvSource).
const (
	defaultCollectiveTimeoutS = 600 // kProcessGroupNCCLDefaultTimeout
	defaultHeartbeatS         = 480 // TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC default, 8 minutes
)

// masking lists settings that hide a fault rather than fix it: each turns
// off a path NCCL would use, so the job runs, slower, and the broken path
// stays broken. The reason says what is lost (NCCL environment variables,
// https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html).
// NCCL's own switches count as NCCL reads them (envvalues.go):
// NCCL_IB_DISABLE=true is 0 to strtoll and disables nothing.
var masking = []struct {
	name string
	bad  func(v string) bool
	lost string
}{
	{"NCCL_P2P_DISABLE", func(v string) bool { return ncclReadsInt(v) == 1 }, "GPU peer-to-peer (NVLink and PCIe P2P): traffic between GPUs goes through host memory (SHM)"},
	{"NCCL_IB_DISABLE", func(v string) bool { return ncclReadsInt(v) != 0 }, "InfiniBand/RoCE: inter-node traffic falls back to TCP sockets"},
	{"NCCL_SHM_DISABLE", func(v string) bool { return ncclReadsInt(v) == 1 }, "shared-memory transport: GPUs without P2P then go through the network stack"},
	{"NCCL_NET_GDR_LEVEL", func(v string) bool { return v == "LOC" || v == "0" }, "GPUDirect RDMA: network traffic is staged through host memory"},
	{"NCCL_P2P_LEVEL", func(v string) bool { return v == "LOC" || v == "0" }, "peer-to-peer between GPUs"},
	{"NCCL_NVLS_ENABLE", func(v string) bool { return v == "0" }, "NVLink SHARP (NVLS) on NVSwitch machines (some VMs and partitioned nodes run without it on purpose)"},
	{"NCCL_CUMEM_ENABLE", func(v string) bool { return v == "0" }, "cuMem-based buffers (NCCL 2.19+ default), needed for NVLS and some P2P paths"},
	{"NCCL_ALGO", nonEmpty, "the tuner's choice of algorithm at every size"},
	{"NCCL_PROTO", nonEmpty, "the tuner's choice of protocol at every size"},
	{"NCCL_MAX_NCHANNELS", func(v string) bool { n, err := strconv.Atoi(v); return err == nil && n < 4 }, "channels (SMs moving data): bandwidth drops with few channels"},
	{"CUDA_LAUNCH_BLOCKING", truthy, "asynchrony: every kernel launch waits, so communication cannot overlap compute"},
}

func truthy(v string) bool {
	v = strings.ToLower(strings.TrimSpace(v))
	return v != "" && v != "0" && v != "false" && v != "no"
}

func nonEmpty(v string) bool { return strings.TrimSpace(v) != "" }

// LintEnv reads the job's environment as PyTorch and NCCL would, from
// every source the evidence holds (an env file, this process, the NCCL
// log's "set by environment" lines) and with the defaults of the versions
// it names: deprecated names (env-renamed), the timeouts in effect
// (env-timeouts), values as the NCCL in use reads them (env-values),
// settings that mask a fault (env-masking), whether a hang
// leaves a Flight Recorder dump (env-flight-recorder), names no NCCL or
// PyTorch release we know reads, with the likely intended one
// (env-unknown), NCCL_IB_HCA and NCCL_SOCKET_IFNAME against the NICs
// (env-nics), the socket interface against the node count
// (socket-interface) and the RoCE GID and MTU (roce-gid, netif.go), and
// what the wrong-results branch needs (wrong-results).
func LintEnv(ev *Evidence) []Verdict {
	env, sources := jobEnv(ev)
	if len(env) == 0 && len(ev.TorchSettings) == 0 {
		return []Verdict{skipped(LayerFramework, "env", "no environment: on the machine the doctor reads its own; elsewhere give --env FILE (the job's `env` output)", chapterPyTorch),
			checkSocketInterface(ev, env), CheckRoCE(ev, env), checkWrongResults(ev, env)}
	}
	out := []Verdict{lintRenamed(env), lintTimeouts(ev), lintValues(env, ev.ncclVersion()), lintMasking(env, ev.ncclVersion()), lintFlightRecorder(ev),
		lintUnknown(env, ev), lintNICs(ev, env), checkSocketInterface(ev, env), CheckRoCE(ev, env), checkWrongResults(ev, env)}
	for i := range out {
		if len(sources) > 0 && out[i].Status != Skipped {
			out[i].Evidence = append(out[i].Evidence, "environment from "+strings.Join(sources, ", "))
		}
	}
	return out
}

// jobEnv is the job's environment as far as the evidence shows what was
// set: the environment given (a file, this process), then what NCCL's log
// says was "set by environment", then the sweep's environment.
func jobEnv(ev *Evidence) (map[string]string, []string) {
	env := map[string]string{}
	var sources []string
	if ev.NCCL != nil && len(ev.NCCL.Env) > 0 && ev.Env == nil {
		for k, v := range ev.NCCL.Env {
			env[k] = v
		}
		sources = append(sources, "the sweep's environment")
	}
	if ev.NCCLLog != nil && len(ev.NCCLLog.Env) > 0 {
		for _, e := range ev.NCCLLog.Env {
			env[e.Name] = e.Value
		}
		sources = append(sources, "NCCL's log (set by environment)")
	}
	if ev.Env != nil {
		for k, v := range ev.Env {
			env[k] = v
		}
		sources = append(sources, orDash(ev.EnvSource))
	}
	return env, sources
}

func lintRenamed(env map[string]string) Verdict {
	v := Verdict{Layer: LayerFramework, Check: "env-renamed", Chapter: chapterPyTorch}
	var found []string
	for _, old := range slices.Sorted(maps.Keys(renamed)) {
		val, ok := env[old]
		if !ok {
			continue
		}
		now := renamed[old]
		line := fmt.Sprintf("%s=%s: deprecated, PyTorch reads %s first", old, val, now)
		if nv, both := env[now]; both && nv != val {
			line += fmt.Sprintf(" (%s=%s is set too and wins)", now, nv)
		}
		found = append(found, old)
		v.Evidence = append(v.Evidence, line)
	}
	v.Evidence = append(v.Evidence, "names from "+pytorchEnvSource)
	if len(found) == 0 {
		return v.judge(OK, "no deprecated PyTorch variable names", "")
	}
	v.Evidence = append(v.Evidence, "PyTorch 2.11 on an H200 (2026-12-01) printed one deprecation warning, for NCCL_ASYNC_ERROR_HANDLING, and none for TORCH_NCCL_TRACE_BUFFER_SIZE set in the same run: a log without the warning does not mean the names are current")
	var fixes []string
	for _, old := range found {
		fixes = append(fixes, old+" -> "+renamed[old])
	}
	return v.judge(Warn, "deprecated names set: "+strings.Join(found, ", ")+" (read today; a later PyTorch drops them and the setting silently stops working)",
		"rename: "+strings.Join(fixes, ", "))
}

// lookup reads a PyTorch setting by its current name, then its old one.
func lookup(env map[string]string, name string) (string, bool) {
	if v, ok := env[name]; ok {
		return v, true
	}
	for old, now := range renamed {
		if now == name {
			if v, ok := env[old]; ok {
				return v, true
			}
		}
	}
	return "", false
}

func lintTimeouts(ev *Evidence) Verdict {
	v := Verdict{Layer: LayerFramework, Check: "env-timeouts", Chapter: chapterTroubleshoot}
	hb := ev.TorchSetting("TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC")
	heartbeat := -1
	if hb.Known {
		if n, err := strconv.Atoi(strings.TrimSpace(hb.Value)); err == nil {
			heartbeat = n
		}
	}
	monitor := ev.TorchSetting("TORCH_NCCL_ENABLE_MONITORING")
	aeh := ev.TorchSetting("TORCH_NCCL_ASYNC_ERROR_HANDLING")
	blocking := ev.TorchSetting("TORCH_NCCL_BLOCKING_WAIT")
	v.Evidence = append(v.Evidence,
		fmt.Sprintf("collective timeout: init_process_group(timeout=...), %d s (10 min) for NCCL and 30 min for other backends unless the program sets it (torch.distributed.constants in PyTorch 2.11); no variable sets it", defaultCollectiveTimeoutS),
		hb.String(), monitor.String(), aeh.String())
	if aeh.Known {
		v.Evidence = append(v.Evidence, "TORCH_NCCL_ASYNC_ERROR_HANDLING: 3 (tear the process down without aborting the communicator) is PyTorch's default under plain python; torchrun sets 1 (abort the communicator, then tear down)")
	}
	if blocking.Known && truthy(blocking.Value) {
		v.Evidence = append(v.Evidence, "TORCH_NCCL_BLOCKING_WAIT set: wait() blocks the CPU and raises at the timeout")
	}
	hbText := "an unknown time (" + hb.Source + ")"
	if heartbeat >= 0 {
		hbText = fmt.Sprintf("%d s", heartbeat)
	}
	// Any problem warns; one that leaves a hang running until someone
	// kills the job fails.
	status := Warn
	var problems []string
	if aeh.Known && strings.TrimSpace(aeh.Value) == "0" && !(blocking.Known && truthy(blocking.Value)) {
		status = Fail
		problems = append(problems, "TORCH_NCCL_ASYNC_ERROR_HANDLING=0 without blocking wait: a timed-out collective is noticed but the job is not torn down, so a hang lasts until someone kills it")
	}
	if monitor.Known && !truthy(monitor.Value) {
		problems = append(problems, "TORCH_NCCL_ENABLE_MONITORING=0: a watchdog stuck in a CUDA or NCCL call is never aborted")
	}
	if heartbeat > 0 && heartbeat < 60 {
		problems = append(problems, fmt.Sprintf("TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC=%d: a slow but healthy watchdog (a large Flight Recorder dump, a slow store) gets the job killed", heartbeat))
	}
	if len(problems) == 0 {
		return v.judge(OK, fmt.Sprintf("a stuck collective is torn down after the process group's timeout (%d s unless the program sets one); a stuck watchdog after %s", defaultCollectiveTimeoutS, hbText), "")
	}
	return v.judge(status, strings.Join(problems, "; "), "leave TORCH_NCCL_ASYNC_ERROR_HANDLING and the monitor at their defaults; set the collective timeout in init_process_group to a few times the slowest step")
}

// ncclDefaultOff are settings whose "off" was NCCL's own default up to a
// release: setting them so there masks nothing (NVIDIA/nccl src/ at the
// tags: NCCL_PARAM(CuMemEnable, "CUMEM_ENABLE", 0) at v2.18.6-1, -2, on
// where the driver supports it, from v2.19.3-1).
var ncclDefaultOff = map[string]struct{ until, source string }{
	"NCCL_CUMEM_ENABLE": {"2.18", "NCCL_PARAM(CuMemEnable, \"CUMEM_ENABLE\", 0) at v2.18.6-1; on by default from v2.19.3-1"},
}

func lintMasking(env map[string]string, ncclVersion string) Verdict {
	v := Verdict{Layer: LayerFramework, Check: "env-masking", Chapter: chapterTroubleshoot}
	var set, deliberate []string
	for _, m := range masking {
		val, ok := env[m.name]
		if !ok || !m.bad(val) {
			continue
		}
		if refused(m.name, val, ncclVersion) {
			continue // not a mask: NCCL refuses the value (env-values)
		}
		if d, ok := ncclDefaultOff[m.name]; ok && ncclVersion != "" && versionIn(ncclVersion, "", d.until) {
			v.Evidence = append(v.Evidence, fmt.Sprintf("%s=%s is NCCL %s's default (%s): nothing masked", m.name, val, shortVersion(ncclVersion), d.source))
			continue
		}
		line := fmt.Sprintf("%s=%s turns off %s", m.name, val, m.lost)
		v.Evidence = append(v.Evidence, line)
		if m.name == "NCCL_NVLS_ENABLE" {
			deliberate = append(deliberate, m.name+"="+val)
			continue
		}
		set = append(set, m.name+"="+val)
	}
	switch {
	case len(set) > 0:
		v.judge(Warn, "settings that mask a fault rather than fix it: "+strings.Join(set, ", "),
			"remove them one at a time and find what they hide (the topology, NIC and NCCL checks above name it); keep one only with a measurement that shows why")
	case len(deliberate) > 0:
		v.judge(OK, "only "+strings.Join(deliberate, ", ")+" (NVLS off: deliberate where the node has no NVLink multicast to offer, a loss of about 30% at large all_reduce sizes on an NVSwitch node that has it)", "")
	default:
		v.judge(OK, "no setting that turns off a transport or forces NCCL's choice", "")
	}
	return v
}

func lintFlightRecorder(ev *Evidence) Verdict {
	v := Verdict{Layer: LayerFramework, Check: "env-flight-recorder", Chapter: chapterTroubleshoot}
	size := ev.TorchSetting("TORCH_FR_BUFFER_SIZE")
	dump := ev.TorchSetting("TORCH_NCCL_DUMP_ON_TIMEOUT")
	file, _ := lookup(ev.Env, "TORCH_FR_DUMP_TEMP_FILE")
	v.Evidence = append(v.Evidence, size.String(), dump.String())
	n, err := strconv.Atoi(strings.TrimSpace(size.Value))
	switch {
	case size.Known && err == nil && n <= 0:
		v.judge(Warn, "the Flight Recorder is off (buffer size "+size.Value+"): a hang leaves no record of which rank stopped where",
			"set TORCH_FR_BUFFER_SIZE=2000 and TORCH_NCCL_DUMP_ON_TIMEOUT=1")
	case dump.Known && truthy(dump.Value):
		at := ""
		if file != "" {
			at = " at " + file + "<rank>"
		}
		v.judge(OK, "a timeout leaves one Flight Recorder dump per rank (TORCH_NCCL_DUMP_ON_TIMEOUT="+dump.Value+")"+at, "")
	case dump.Known:
		v.judge(OK, "the Flight Recorder records, but no dump is written at a timeout (TORCH_NCCL_DUMP_ON_TIMEOUT="+dump.Value+")",
			"set TORCH_NCCL_DUMP_ON_TIMEOUT=1 and TORCH_FR_DUMP_TEMP_FILE=/shared/path/fr_ so a hang leaves one dump per rank")
	default:
		v.judge(Skipped, "whether a timeout writes a Flight Recorder dump is not known: "+dump.Source,
			"set TORCH_NCCL_DUMP_ON_TIMEOUT=1 explicitly, or give the PyTorch version (--torch) or its log (TORCH_CPP_LOG_LEVEL=INFO prints the settings)")
	}
	return v
}

// pytorchOwn are NCCL_-prefixed names that are not NCCL settings:
// PyTorch's own (its deprecated aliases are in renamed), and NCCL_VERSION,
// which NVIDIA's CUDA container images set to label the NCCL they ship
// (the lab's H200 machines have NCCL_VERSION=2.28.3-1).
var pytorchOwn = map[string]bool{"NCCL_USE_TENSOR_REGISTER_ALLOCATOR_HOOK": true, "NCCL_VERSION": true}

func lintUnknown(env map[string]string, ev *Evidence) Verdict {
	v := Verdict{Layer: LayerFramework, Check: "env-unknown", Chapter: chapterNCCL}
	ncclVer, torchVer := ev.ncclVersion(), ev.TorchVersion
	ncclList, ncclKnown := listFor("nccl", ncclVer)
	torchList, torchKnown := listFor("torch", torchVer)
	var unknown []string
	for _, k := range slices.Sorted(maps.Keys(env)) {
		lib := envLibOf(k)
		if lib == "" || renamed[k] != "" || pytorchOwn[k] {
			continue
		}
		readers := envReaders(lib, k)
		what, list, known, ver := "NCCL", ncclList, ncclKnown, ncclVer
		if lib == "torch" {
			what, list, known, ver = "PyTorch", torchList, torchKnown, torchVer
		}
		switch {
		case readers == "":
			line := fmt.Sprintf("%s: no %s release we know reads it (%s)", k, what, knownReleases(lib))
			short := k
			if near, _ := closestEnvName(lib, k); near != "" {
				line += "; did you mean " + near + "?"
				short += " (did you mean " + near + "?)"
			}
			unknown = append(unknown, short)
			v.Evidence = append(v.Evidence, line)
		case known && !list.names[k]:
			unknown = append(unknown, k+" (not in "+what+" "+shortVersion(ver)+")")
			v.Evidence = append(v.Evidence, fmt.Sprintf("%s: %s %s does not read it (%s %s do)", k, what, shortVersion(ver), what, readers))
		}
	}
	if !ncclKnown {
		v.Evidence = append(v.Evidence, "the NCCL version is not in the evidence: names are checked against every release from "+knownReleases("nccl"))
	}
	if !torchKnown {
		v.Evidence = append(v.Evidence, "the PyTorch version is not in the evidence: names are checked against "+knownReleases("torch"))
	}
	if len(unknown) == 0 {
		return v.judge(OK, "every NCCL_* and TORCH_NCCL_* variable set is one the NCCL and PyTorch in use read", "")
	}
	return v.judge(Warn, "variables the NCCL and PyTorch in use do not read (they do nothing): "+strings.Join(unknown, ", "),
		"fix the spelling (the likely name is given where one is near); NCCL has no NCCL_TIMEOUT (the collective timeout is PyTorch's init_process_group(timeout=...))")
}

func knownReleases(lib string) string {
	var vs []string
	for _, l := range knownEnvLists() {
		if l.lib == lib {
			vs = append(vs, l.version)
		}
	}
	switch len(vs) {
	case 0:
		return "none"
	case 1, 2:
		return strings.Join(vs, " and ")
	}
	return vs[0] + " to " + vs[len(vs)-1]
}
