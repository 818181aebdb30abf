package doctor

// This file reads the values of NCCL's variables the way the NCCL release
// in use reads them, not the way a person means them: NCCL_BUFFSIZE=4M is
// 4 bytes to strtoll, NCCL_IB_DISABLE=true is 0, NCCL_ALGO=Rign makes
// NCCL 2.24+ refuse to initialise. A value NCCL refuses is a failure; one
// it reads as something else is a warning that says what NCCL does.

import (
	_ "embed"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// ncclValueSource is where each rule below is read (NVIDIA/nccl at the
// tags named; the same code at every release in between unless said).
const ncclValueSource = "NVIDIA/nccl v2.28.9-1 src/misc/param.cc ncclLoadParam (strtoll(str, nullptr, 0); src/include/param.h from v2.4.8-1), src/graph/tuning.cc parseList, src/graph/paths.cc ncclGetLevel, src/misc/socket.cc ncclFindInterfaces, src/misc/utils.cc parseStringList, src/transport/net_ib.cc, src/debug.cc"

//go:embed envnames/nccl-int-params.tsv
var ncclIntParamsTSV string

// ncclIntParam is one NCCL_PARAM declaration: read by strtoll, from the
// first to the last minor release that declares it.
type ncclIntParam struct{ first, last, def string }

var (
	intParamsOnce sync.Once
	intParams     map[string]ncclIntParam
)

func ncclIntParams() map[string]ncclIntParam {
	intParamsOnce.Do(func() {
		intParams = map[string]ncclIntParam{}
		for _, line := range strings.Split(ncclIntParamsTSV, "\n") {
			f := strings.Split(line, "\t")
			if len(f) != 4 || strings.HasPrefix(line, "#") {
				continue
			}
			intParams[f[0]] = ncclIntParam{f[1], f[2], f[3]}
		}
	})
	return intParams
}

// isIntParam says whether the NCCL in use (any release when version is
// "") reads name with strtoll.
func isIntParam(name, version string) (ncclIntParam, bool) {
	p, ok := ncclIntParams()[name]
	if !ok || version == "" || versionNumbers(version) == nil {
		return p, ok
	}
	return p, sameOrLater(version, p.first) && !sameOrLater(version, nextMinor(p.last))
}

// sameOrLater compares minor releases: 2.28.9 is at or after 2.28.
func sameOrLater(version, than string) bool {
	a, b := versionNumbers(version), versionNumbers(than)
	for i := 0; i < 2; i++ {
		if i >= len(a) || i >= len(b) {
			return true
		}
		if a[i] != b[i] {
			return a[i] > b[i]
		}
	}
	return true
}

func nextMinor(v string) string {
	n := versionNumbers(v)
	if len(n) < 2 {
		return v
	}
	return fmt.Sprintf("%d.%d", n[0], n[1]+1)
}

// strtoll reads s as glibc's strtoll(s, NULL, 0) does: leading white
// space, a sign, then "0x" for hex, a leading "0" for octal, else decimal,
// up to the first character that is not a digit of the base. digits is
// false when nothing was read (the value is then 0 and glibc sets no
// errno); overflow is ERANGE, which NCCL takes as "Invalid value".
func strtoll(s string) (v int64, rest string, base int, digits, overflow bool) {
	i := 0
	for i < len(s) && strings.ContainsRune(" \t\n\v\f\r", rune(s[i])) {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	base = 10
	switch {
	case i+1 < len(s) && s[i] == '0' && (s[i+1] == 'x' || s[i+1] == 'X') && i+2 < len(s) && digitOf(s[i+2]) < 16:
		base, i = 16, i+2
	case i < len(s) && s[i] == '0':
		base = 8
	}
	var acc uint64
	start := i
	for ; i < len(s); i++ {
		d := digitOf(s[i])
		if d >= base {
			break
		}
		if acc > (math.MaxUint64-uint64(d))/uint64(base) {
			overflow = true
		} else {
			acc = acc*uint64(base) + uint64(d)
		}
	}
	digits = i > start
	if !digits {
		return 0, s, base, false, false
	}
	if !neg && acc > math.MaxInt64 || neg && acc > 1<<63 {
		overflow = true
	}
	if overflow {
		return 0, s[i:], base, true, true
	}
	v = int64(acc)
	if neg {
		v = -v
	}
	return v, s[i:], base, true, false
}

func digitOf(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'z':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'Z':
		return int(c-'A') + 10
	}
	return 99
}

// ncclReadsInt is the number NCCL reads from an integer variable's value.
func ncclReadsInt(s string) int64 {
	v, _, _, _, _ := strtoll(s)
	return v
}

// valueFinding is what NCCL makes of one variable's value, when it is
// not what the value says.
type valueFinding struct {
	status Status
	text   string
}

// readIntValue says what NCCL makes of an integer variable's value.
func readIntValue(name, val string, p ncclIntParam) (valueFinding, bool) {
	v, rest, base, digits, overflow := strtoll(val)
	def := strings.TrimSpace(p.def)
	switch {
	case strings.TrimSpace(val) == "":
		return valueFinding{}, false // NCCL ignores an empty value (strlen(str) > 0)
	case overflow:
		return valueFinding{Warn, fmt.Sprintf("%s=%s overflows a 64-bit integer: NCCL logs \"Invalid value\" and uses its default (%s)", name, val, def)}, true
	case !digits:
		word := strings.ToLower(strings.TrimSpace(val))
		if word == "true" || word == "yes" || word == "on" || word == "y" || word == "enable" || word == "enabled" {
			return valueFinding{Warn, fmt.Sprintf("%s=%s is read by strtoll as 0 (not a number): NCCL takes it as off/0, the opposite of what it says; write 1", name, val)}, true
		}
		return valueFinding{Warn, fmt.Sprintf("%s=%s is not a number: strtoll reads 0 and NCCL uses 0 (not its default %s)", name, val, def)}, true
	case strings.TrimSpace(rest) != "":
		suffix := strings.TrimSpace(rest)
		what := fmt.Sprintf("%s=%s is read by strtoll as %d: NCCL ignores %q", name, val, v, suffix)
		if u := strings.ToUpper(suffix[:1]); strings.Contains("KMGT", u) {
			mult := map[string]int64{"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}[u]
			what += fmt.Sprintf(" (NCCL takes no unit suffix: %d%s is written %d)", v, suffix, v*mult)
		}
		return valueFinding{Warn, what}, true
	case base == 8 && v != 0:
		dec, _ := strconv.ParseInt(strings.TrimSpace(val), 10, 64)
		if dec != v {
			return valueFinding{Warn, fmt.Sprintf("%s=%s starts with 0, so strtoll reads it as octal: NCCL uses %d, not %d", name, val, v, dec)}, true
		}
	}
	return valueFinding{}, false
}

// ncclAlgos and ncclProtos are the tokens each release's NCCL_ALGO and
// NCCL_PROTO know (ncclAlgoStr, ncclProtoStr: src/graph/tuning.cc up to
// 2.6, src/init.cc after), by the first release that has the list.
var ncclAlgos = []struct {
	from   string
	tokens []string
}{
	{"2.5", []string{"Tree", "Ring"}},
	{"2.6", []string{"Tree", "Ring", "CollNet"}},
	{"2.14", []string{"Tree", "Ring", "CollNetDirect", "CollNetChain"}},
	{"2.17", []string{"Tree", "Ring", "CollNetDirect", "CollNetChain", "NVLS"}},
	{"2.18", []string{"Tree", "Ring", "CollNetDirect", "CollNetChain", "NVLS", "NVLSTree"}},
	{"2.23", []string{"Tree", "Ring", "CollNetDirect", "CollNetChain", "NVLS", "NVLSTree", "PAT"}},
}

var ncclProtos = []string{"LL", "LL128", "Simple"} // v2.5.7-1 to v2.30.7-1
// ncclFuncs are the prefixes of the per-function form ("allreduce:tree")
// NCCL reads from 2.24 (ncclFuncStr, src/init.cc).
var ncclFuncs = []string{"Broadcast", "Reduce", "AllGather", "ReduceScatter", "AllReduce"}

// strictListsFrom is the first release whose parseList refuses an
// unknown token ("Unrecognized element token", ncclInvalidUsage: the
// communicator does not initialise); before it an unknown token was
// skipped silently (v2.23.4-1 src/graph/tuning.cc).
const strictListsFrom = "2.24"

func algoTokens(version string) []string {
	if version == "" {
		return ncclAlgos[len(ncclAlgos)-1].tokens
	}
	var out []string
	for _, a := range ncclAlgos {
		if sameOrLater(version, a.from) {
			out = a.tokens
		}
	}
	return out
}

// readTokenList says what the NCCL in use makes of an NCCL_ALGO or
// NCCL_PROTO value.
func readTokenList(name, val, version string, tokens []string) (valueFinding, bool) {
	if len(tokens) == 0 {
		return valueFinding{}, false // the release does not read the variable: env-unknown says so
	}
	strict := version == "" || sameOrLater(version, strictListsFrom)
	ver := "NCCL " + shortVersion(version)
	if version == "" {
		ver = "NCCL 2.24 and later (the version is not in the evidence)"
	}
	var unknown []string
	known := 0
	entries := strings.Split(val, ";")
	for i, entry := range entries {
		if entry == "" {
			continue
		}
		list := entry
		if strict {
			prefix, rest, hasPrefix := strings.Cut(entry, ":")
			if hasPrefix {
				if !hasFold(ncclFuncs, prefix) {
					return valueFinding{Fail, fmt.Sprintf("%s=%s: %q is not a collective (%s): %s refuses the value (\"Unrecognized prefix token\") and the communicator does not initialise", name, val, prefix, strings.Join(ncclFuncs, ", "), ver)}, true
				}
				list = rest
			} else if i > 0 {
				return valueFinding{Fail, fmt.Sprintf("%s=%s: only the first ';' entry may lack a collective prefix: %s refuses the value (\"All entries except the first must have a prefix\") and the communicator does not initialise", name, val, ver)}, true
			}
		}
		list = strings.TrimPrefix(list, "^")
		for _, t := range strings.Split(list, ",") {
			if t == "" {
				continue
			}
			if hasFold(tokens, t) {
				known++
			} else {
				unknown = append(unknown, t)
			}
		}
	}
	if len(unknown) == 0 {
		return valueFinding{}, false
	}
	near := ""
	if n := nearestToken(unknown[0], tokens); n != "" {
		near = " (did you mean " + n + "?)"
	}
	q := strings.Join(unknown, ", ")
	switch {
	case strict:
		return valueFinding{Fail, fmt.Sprintf("%s=%s: %s is not one of %s%s: %s refuses the value (\"Unrecognized element token\", ncclInvalidUsage) and the communicator does not initialise", name, val, q, strings.Join(tokens, ", "), near, ver)}, true
	case strings.HasPrefix(val, "^"):
		return valueFinding{Warn, fmt.Sprintf("%s=%s: %s is not one of %s%s: %s skips it silently, so it excludes nothing", name, val, q, strings.Join(tokens, ", "), near, ver)}, true
	case known == 0:
		return valueFinding{Fail, fmt.Sprintf("%s=%s: %s is not one of %s%s: %s skips it silently, leaving no %s enabled, and the first collective fails (\"no algorithm/protocol available\")", name, val, q, strings.Join(tokens, ", "), near, ver, strings.ToLower(strings.TrimPrefix(name, "NCCL_")))}, true
	}
	return valueFinding{Warn, fmt.Sprintf("%s=%s: %s is not one of %s%s: %s skips it silently and uses the others", name, val, q, strings.Join(tokens, ", "), near, ver)}, true
}

func hasFold(xs []string, x string) bool {
	for _, y := range xs {
		if strings.EqualFold(x, y) {
			return true
		}
	}
	return false
}

func nearestToken(t string, tokens []string) string {
	best, bestD := "", 3
	for _, k := range tokens {
		if d := editDistance(strings.ToLower(t), strings.ToLower(k)); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

// pathLevels are the names NCCL_P2P_LEVEL and NCCL_NET_GDR_LEVEL take,
// compared case-sensitively with strcmp up to SYS (topoPathTypeStr,
// src/graph/topo.cc; C2C and P2C from 2.2x, PXN from 2.12); a value that
// starts with a digit is the old numbering.
var pathLevels = []string{"LOC", "NVL", "NVB", "C2C", "PIX", "PXB", "P2C", "PXN", "PHB", "SYS"}

// readIfList says what NCCL makes of an NCCL_IB_HCA or NCCL_SOCKET_IFNAME
// value's syntax (its selection against the NICs is lintNICs').
func readIfList(name, val string) []valueFinding {
	var out []valueFinding
	if name == "NCCL_SOCKET_IFNAME" && len(val) <= 1 {
		return []valueFinding{{Warn, fmt.Sprintf("%s=%q is ignored: NCCL reads it only when longer than one character (strlen(env) > 1) and picks an interface itself", name, val)}}
	}
	rest := val
	if strings.HasPrefix(rest, "^") {
		rest = rest[1:]
	}
	exact := strings.HasPrefix(rest, "=")
	if exact {
		rest = rest[1:]
	}
	if strings.HasPrefix(rest, "^") {
		out = append(out, valueFinding{Fail, fmt.Sprintf("%s=%s: NCCL reads '^' before '=' only; here '^' is part of the name, which matches no device (write ^=%s)", name, val, strings.TrimPrefix(rest, "^"))})
	}
	if strings.ContainsAny(val, " \t") {
		out = append(out, valueFinding{Warn, fmt.Sprintf("%s=%q holds white space: NCCL keeps it as part of a name (parseStringList splits on ',' only), so that entry matches no device", name, val)})
	}
	for _, part := range strings.Split(rest, ",") {
		dev, port, hasPort := strings.Cut(part, ":")
		if !hasPort || dev == "" {
			continue
		}
		if name == "NCCL_SOCKET_IFNAME" {
			out = append(out, valueFinding{Warn, fmt.Sprintf("%s=%s: NCCL_SOCKET_IFNAME takes no port; %q is read as the name %q with the port ignored", name, val, part, dev)})
			continue
		}
		if n, err := strconv.Atoi(port); err != nil || n < 1 {
			out = append(out, valueFinding{Warn, fmt.Sprintf("%s=%s: port %q of %s is read by atoi as %d, and ports start at 1: the entry selects no port", name, val, port, dev, ncclReadsInt(port))})
		}
	}
	return out
}

// lintValues reads each NCCL variable's value as the NCCL in use reads it
// (env-values).
func lintValues(env map[string]string, version string) Verdict {
	v := Verdict{Layer: LayerNCCL, Check: "env-values", Chapter: chapterNCCL}
	var found []valueFinding
	add := func(f valueFinding, ok bool) {
		if ok {
			found = append(found, f)
		}
	}
	checked := 0
	for _, k := range slices.Sorted(maps.Keys(env)) {
		val := env[k]
		if !strings.HasPrefix(k, "NCCL_") {
			continue
		}
		switch k {
		case "NCCL_ALGO":
			checked++
			add(readTokenList(k, val, version, algoTokens(version)))
			continue
		case "NCCL_PROTO":
			checked++
			if version == "" || sameOrLater(version, "2.5") {
				add(readTokenList(k, val, version, ncclProtos))
			}
			continue
		case "NCCL_IB_HCA", "NCCL_SOCKET_IFNAME":
			checked++
			found = append(found, readIfList(k, val)...)
			continue
		case "NCCL_P2P_DISABLE":
			// read with strtol in ncclGetLevel: only 1 disables
			checked++
			if n := ncclReadsInt(val); n != 1 && truthy(val) {
				add(valueFinding{Warn, fmt.Sprintf("%s=%s: NCCL reads %d and disables peer-to-peer only for exactly 1 (src/graph/paths.cc ncclGetLevel): P2P stays on", k, val, n)}, true)
			}
			continue
		case "NCCL_P2P_LEVEL", "NCCL_NET_GDR_LEVEL":
			checked++
			if val != "" && !slices.Contains(pathLevels, val) && !(val[0] >= '0' && val[0] <= '9') {
				hint := ""
				if slices.Contains(pathLevels, strings.ToUpper(val)) {
					hint = " (NCCL compares case-sensitively: write " + strings.ToUpper(val) + ")"
				}
				add(valueFinding{Warn, fmt.Sprintf("%s=%s is not one of %s%s: NCCL ignores it and uses its own limit", k, val, strings.Join(pathLevels, ", "), hint)}, true)
			}
			continue
		case "NCCL_SOCKET_FAMILY":
			checked++
			if val != "AF_INET" && val != "AF_INET6" {
				add(valueFinding{Warn, fmt.Sprintf("%s=%s: NCCL takes only AF_INET or AF_INET6 (strcmp, src/misc/socket.cc envSocketFamily) and otherwise uses the first family it finds", k, val)}, true)
			}
			continue
		case "NCCL_DEBUG":
			checked++
			if !hasFold([]string{"VERSION", "WARN", "INFO", "ABORT", "TRACE"}, val) {
				add(valueFinding{Warn, fmt.Sprintf("%s=%s is not VERSION, WARN, INFO, ABORT or TRACE: NCCL does not take it as a level (src/debug.cc)", k, val)}, true)
			}
			continue
		}
		p, ok := isIntParam(k, version)
		if !ok {
			continue
		}
		checked++
		f, bad := readIntValue(k, val, p)
		add(f, bad)
		if bad {
			continue
		}
		n := ncclReadsInt(val)
		switch k {
		case "NCCL_IB_TIMEOUT":
			if n < 0 || n > 31 {
				add(valueFinding{Warn, fmt.Sprintf("%s=%s: the QP's local ACK timeout is a 5-bit field (0 to 31, 4.096 us x 2^n: InfiniBand spec, ibv_modify_qp(3)); NCCL passes the value as it is to ibv_modify_qp (src/transport/net_ib.cc), which the driver may refuse or truncate", k, val)}, true)
			}
		case "NCCL_IB_RETRY_CNT":
			if n < 0 || n > 7 {
				add(valueFinding{Warn, fmt.Sprintf("%s=%s: the QP's retry count is a 3-bit field (0 to 7, ibv_modify_qp(3)); NCCL passes the value as it is, which the driver may refuse or truncate", k, val)}, true)
			}
		}
	}
	v.Evidence = append(v.Evidence, "values read as "+ncclValueSource)
	if version == "" {
		v.Evidence = append(v.Evidence, "the NCCL version is not in the evidence: lists are the newest release's, and integers every release's NCCL_PARAM names")
	}
	status := OK
	var fails, warns []string
	for _, f := range found {
		v.Evidence = append(v.Evidence, f.text)
		if f.status > status {
			status = f.status
		}
		if f.status == Fail {
			fails = append(fails, f.text)
		} else {
			warns = append(warns, f.text)
		}
	}
	switch {
	case status == Fail:
		v.judge(Fail, "a value NCCL refuses: "+strings.Join(fails, "; "), "fix the value (the token lists and forms are in NCCL's environment documentation for the release in use); NCCL_DEBUG=INFO prints each value as NCCL read it (\"set by environment to\")")
	case status == Warn:
		v.judge(Warn, "values NCCL reads as something else: "+strings.Join(warns, "; "), "write the value NCCL reads as meant (plain integers, no unit suffix, 1 for on); NCCL_DEBUG=INFO prints each value as NCCL read it (\"set by environment to\")")
	case checked == 0:
		v.judge(OK, "no NCCL variable whose value NCCL parses", "")
	default:
		v.judge(OK, fmt.Sprintf("%d NCCL value(s) read as written", checked), "")
	}
	return v
}

// refused says whether NCCL refuses an NCCL_ALGO or NCCL_PROTO value
// outright, so that it does not run at all rather than run masked.
func refused(name, val, version string) bool {
	var f valueFinding
	var bad bool
	switch name {
	case "NCCL_ALGO":
		f, bad = readTokenList(name, val, version, algoTokens(version))
	case "NCCL_PROTO":
		f, bad = readTokenList(name, val, version, ncclProtos)
	}
	return bad && f.status == Fail
}
