package main

import (
	"fmt"
	"io"
	"sort"
	"strings"
)

// probeKind is one thing `commlab probe` can read or measure. Kinds register
// themselves from their own files (probe_*.go) in init; each parses its own
// flags (use parseInterleaved) and returns an exit status.
type probeKind struct {
	name    string
	summary string
	run     func(args []string, stdout, stderr io.Writer) int
}

var probeKinds = map[string]probeKind{}

func registerProbeKind(k probeKind) {
	if _, dup := probeKinds[k.name]; dup {
		panic("commlab: probe kind registered twice: " + k.name)
	}
	probeKinds[k.name] = k
}

func init() {
	register(subcommand{name: "probe", summary: "read this machine's topology or measure it", run: runProbe})
}

func runProbe(args []string, stdout, stderr io.Writer) int {
	names := make([]string, 0, len(probeKinds))
	for n := range probeKinds {
		names = append(names, n)
	}
	sort.Strings(names)
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		fmt.Fprintf(stderr, "usage: commlab probe <%s> [flags] [--json]\n", strings.Join(names, "|"))
		return 2
	}
	k, ok := probeKinds[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "commlab probe: unknown probe %q (known: %s)\n", args[0], strings.Join(names, ", "))
		return 2
	}
	return k.run(args[1:], stdout, stderr)
}
