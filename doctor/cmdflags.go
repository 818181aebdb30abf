package doctor

import "strings"

// fullFlags are the flags of commlab doctor that only the full doctor
// reads: with any of them, --nccl-tests FILE is one more piece of its
// evidence rather than the curve doctor's one input.
var fullFlags = map[string]bool{"out": true, "node-dir": true, "topo": true, "lspci": true, "nccl-log": true, "nccl-run": true,
	"bandwidth": true, "fr": true, "trace": true, "env": true, "baseline": true, "recorded": true, "rank-runs": true, "nodes": true,
	"pairs": true, "stacks": true, "dmesg": true, "rdma": true, "counters": true, "launcher": true, "torch": true, "live": true}

// CurveOnly says whether the arguments ask for the curve doctor alone
// (--nccl-tests FILE and its own flags: commlab doctor --nccl-tests -h).
func CurveOnly(args []string) bool {
	curve := false
	for _, a := range args {
		if a == "--" {
			break
		}
		if !strings.HasPrefix(a, "-") {
			continue
		}
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if name == "nccl-tests" {
			curve = true
		}
		if fullFlags[name] {
			return false
		}
	}
	return curve
}
