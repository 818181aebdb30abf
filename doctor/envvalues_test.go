package doctor

import (
	"strings"
	"testing"
)

// TestLintValues holds each rule of env-values to a value as a user
// writes it and what the NCCL release named reads (envvalues.go cites
// the source of each).
func TestLintValues(t *testing.T) {
	cases := []struct {
		name    string
		env     map[string]string
		version string
		want    Status
		says    string
	}{
		{"suffix read by strtoll", map[string]string{"NCCL_BUFFSIZE": "4M"}, "2.28.9", Warn, "read by strtoll as 4: NCCL ignores \"M\" (NCCL takes no unit suffix: 4M is written 4194304)"},
		{"plain bytes", map[string]string{"NCCL_BUFFSIZE": "4194304"}, "2.28.9", OK, "1 NCCL value(s) read as written"},
		{"hex is fine", map[string]string{"NCCL_BUFFSIZE": "0x400000"}, "2.28.9", OK, ""},
		{"octal", map[string]string{"NCCL_IB_TIMEOUT": "022"}, "2.28.9", Warn, "reads it as octal: NCCL uses 18, not 22"},
		{"true is 0", map[string]string{"NCCL_IB_DISABLE": "true"}, "2.28.9", Warn, "NCCL_IB_DISABLE=true is read by strtoll as 0"},
		{"word is 0", map[string]string{"NCCL_NTHREADS": "max"}, "2.28.9", Warn, "strtoll reads 0 and NCCL uses 0 (not its default -2)"},
		{"overflow", map[string]string{"NCCL_BUFFSIZE": "99999999999999999999"}, "2.28.9", Warn, "NCCL logs \"Invalid value\" and uses its default (-2)"},
		{"empty ignored", map[string]string{"NCCL_BUFFSIZE": ""}, "2.28.9", OK, ""},
		{"algo typo 2.28", map[string]string{"NCCL_ALGO": "Rign"}, "2.28.9", Fail, "Rign is not one of Tree, Ring, CollNetDirect, CollNetChain, NVLS, NVLSTree, PAT (did you mean Ring?): NCCL 2.28.9 refuses the value"},
		{"algo typo unknown version", map[string]string{"NCCL_ALGO": "Rign"}, "", Fail, "NCCL 2.24 and later (the version is not in the evidence) refuses"},
		{"algo typo 2.18 alone", map[string]string{"NCCL_ALGO": "Rign"}, "2.18.6", Fail, "skips it silently, leaving no algo enabled"},
		{"algo typo 2.18 with ring", map[string]string{"NCCL_ALGO": "Ring,Trea"}, "2.18.6", Warn, "skips it silently and uses the others"},
		{"algo exclusion typo 2.21", map[string]string{"NCCL_ALGO": "^NVSL"}, "2.21.5", Warn, "so it excludes nothing"},
		{"PAT before 2.23", map[string]string{"NCCL_ALGO": "PAT"}, "2.22.3", Fail, "PAT is not one of Tree, Ring, CollNetDirect, CollNetChain, NVLS, NVLSTree"},
		{"algo case-insensitive", map[string]string{"NCCL_ALGO": "ring,tree"}, "2.28.9", OK, ""},
		{"algo per collective 2.28", map[string]string{"NCCL_ALGO": "ring;allreduce:tree,nvls"}, "2.28.9", OK, ""},
		{"algo bad prefix 2.28", map[string]string{"NCCL_ALGO": "allreduc:tree"}, "2.28.9", Fail, "\"allreduc\" is not a collective"},
		{"algo second entry without prefix", map[string]string{"NCCL_ALGO": "ring;tree"}, "2.28.9", Fail, "only the first ';' entry may lack a collective prefix"},
		{"proto exclusion", map[string]string{"NCCL_PROTO": "^LL128"}, "2.28.9", OK, ""},
		{"proto typo", map[string]string{"NCCL_PROTO": "^LL12"}, "2.28.9", Fail, "LL12 is not one of LL, LL128, Simple (did you mean LL128?)"},
		{"ib hca order", map[string]string{"NCCL_IB_HCA": "=^mlx5_0"}, "2.28.9", Fail, "NCCL reads '^' before '=' only"},
		{"ib hca space", map[string]string{"NCCL_IB_HCA": "mlx5_0, mlx5_1"}, "2.28.9", Warn, "holds white space"},
		{"ib hca bad port", map[string]string{"NCCL_IB_HCA": "mlx5_0:p1"}, "2.28.9", Warn, "port \"p1\" of mlx5_0 is read by atoi as 0"},
		{"ib hca port", map[string]string{"NCCL_IB_HCA": "^=mlx5_0:1,mlx5_1:1"}, "2.28.9", OK, ""},
		{"socket ifname one letter", map[string]string{"NCCL_SOCKET_IFNAME": "e"}, "2.28.9", Warn, "NCCL reads it only when longer than one character"},
		{"socket ifname port", map[string]string{"NCCL_SOCKET_IFNAME": "eth0:1"}, "2.28.9", Warn, "NCCL_SOCKET_IFNAME takes no port"},
		{"p2p disable 2", map[string]string{"NCCL_P2P_DISABLE": "2"}, "2.28.9", Warn, "disables peer-to-peer only for exactly 1"},
		{"gdr level lower case", map[string]string{"NCCL_NET_GDR_LEVEL": "pxb"}, "2.28.9", Warn, "NCCL compares case-sensitively: write PXB"},
		{"gdr level number", map[string]string{"NCCL_NET_GDR_LEVEL": "2"}, "2.28.9", OK, ""},
		{"socket family", map[string]string{"NCCL_SOCKET_FAMILY": "ipv4"}, "2.28.9", Warn, "NCCL takes only AF_INET or AF_INET6"},
		{"debug level", map[string]string{"NCCL_DEBUG": "DEBUG"}, "2.28.9", Warn, "not VERSION, WARN, INFO, ABORT or TRACE"},
		{"ib timeout range", map[string]string{"NCCL_IB_TIMEOUT": "40"}, "2.28.9", Warn, "5-bit field"},
		{"ib retry range", map[string]string{"NCCL_IB_RETRY_CNT": "10"}, "2.28.9", Warn, "3-bit field"},
		{"nothing parsed", map[string]string{"TORCH_NCCL_ASYNC_ERROR_HANDLING": "1"}, "2.28.9", OK, "no NCCL variable whose value NCCL parses"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := lintValues(c.env, c.version)
			if v.Status != c.want {
				t.Fatalf("status %v, want %v: %s", v.Status, c.want, v.Summary)
			}
			if c.says != "" && !strings.Contains(v.Summary, c.says) {
				t.Errorf("summary %q\nwant it to say %q", v.Summary, c.says)
			}
		})
	}
}

func TestStrtoll(t *testing.T) {
	cases := []struct {
		in     string
		v      int64
		rest   string
		digits bool
	}{
		{"4M", 4, "M", true}, {" 12", 12, "", true}, {"-3x", -3, "x", true}, {"0x1F", 31, "", true},
		{"0x", 0, "x", true}, {"010", 8, "", true}, {"09", 0, "9", true}, {"true", 0, "true", false}, {"", 0, "", false},
	}
	for _, c := range cases {
		v, rest, _, digits, _ := strtoll(c.in)
		if v != c.v || rest != c.rest || digits != c.digits {
			t.Errorf("strtoll(%q) = %d, %q, %v; want %d, %q, %v", c.in, v, rest, digits, c.v, c.rest, c.digits)
		}
	}
}

// TestMaskingAsNCCLReads: a switch NCCL reads as 0 masks nothing, and a
// token NCCL refuses is a failure (env-values), not a mask.
func TestMaskingAsNCCLReads(t *testing.T) {
	for _, c := range []struct {
		env  map[string]string
		want Status
	}{
		{map[string]string{"NCCL_IB_DISABLE": "true"}, OK},
		{map[string]string{"NCCL_IB_DISABLE": "1"}, Warn},
		{map[string]string{"NCCL_ALGO": "Rign"}, OK},
		{map[string]string{"NCCL_ALGO": "Ring"}, Warn},
	} {
		if v := lintMasking(c.env, "2.28.9"); v.Status != c.want {
			t.Errorf("%v: env-masking %v, want %v (%s)", c.env, v.Status, c.want, v.Summary)
		}
	}
}
