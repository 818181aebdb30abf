package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/commlab/commlab/doctor"
)

// Every verb of the table answers -h: exit 0, its usage lines first (the
// first naming the verb as the table does), then its flags, on stderr.
func TestEveryVerbHelp(t *testing.T) {
	var walk func(path []string, table []verb)
	walk = func(path []string, table []verb) {
		for _, v := range table {
			p := append(append([]string(nil), path...), v.name)
			if v.sub != nil {
				walk(p, v.sub)
			}
			if v.run == nil {
				continue
			}
			checkHelp(t, p[1:], v.usage)
		}
	}
	walk([]string{"commlab"}, verbs)
	// The curve doctor's flags are its own, under commlab doctor.
	checkHelp(t, []string{"doctor"}, doctor.CurveUsage, "--nccl-tests=FILE")
	// ... and as commlab doctor -h spells it, where the flag takes -h as
	// its value.
	checkHelp(t, []string{"doctor"}, doctor.CurveUsage, "--nccl-tests")
}

// checkHelp runs the verb at path with -h after args.
func checkHelp(t *testing.T, path, usage []string, args ...string) {
	t.Helper()
	name := strings.Join(path, " ")
	if len(usage) == 0 || !strings.HasPrefix(usage[0], "usage: commlab "+name+" ") {
		t.Errorf("%s: usage %q does not start with %q", name, usage, "usage: commlab "+name)
		return
	}
	var out, errb bytes.Buffer
	code := dispatch(append(append(path, args...), "-h"), &out, &errb)
	if code != 0 || out.Len() != 0 || !strings.HasPrefix(errb.String(), strings.Join(usage, "\n")+"\n  -") {
		t.Errorf("%s -h: exit %d, stdout %q, stderr %q", name, code, out.String(), errb.String())
	}
}
