// Command commlab is a Go Jupyter kernel and literate lab for GPU
// communication: it runs the kernel, installs its kernelspec, runs and syncs
// the chapter notebooks, evaluates cost models, parses tool outputs and probes
// the machine.
//
// Each subcommand lives in its own file of this package and registers itself
// in init, so the command table is assembled without one file that every
// feature must edit.
package main

import (
	"fmt"
	"io"
	"os"
	"sort"
)

// subcommand is one verb of the commlab command.
type subcommand struct {
	name    string
	summary string
	// run executes the verb with the arguments after its name and returns
	// the process exit status (2 for usage errors).
	run func(args []string, stdout, stderr io.Writer) int
}

var subcommands = map[string]subcommand{}

func register(c subcommand) {
	if _, dup := subcommands[c.name]; dup {
		panic("commlab: subcommand registered twice: " + c.name)
	}
	subcommands[c.name] = c
}

func main() {
	os.Exit(dispatch(os.Args[1:], os.Stdout, os.Stderr))
}

func dispatch(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stderr)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	if args[0] == "version" || args[0] == "--version" {
		fmt.Fprintln(stdout, "commlab", version())
		return 0
	}
	c, ok := subcommands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "commlab: unknown command %q\n\n", args[0])
		usage(stderr)
		return 2
	}
	return c.run(args[1:], stdout, stderr)
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: commlab <command> [arguments]")
	fmt.Fprintln(w, "\ncommands:")
	names := make([]string, 0, len(subcommands))
	for n := range subcommands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, subcommands[n].summary)
	}
	fmt.Fprintln(w, "\nRun 'commlab <command> -h' for a command's flags.")
}
