package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/commlab/commlab/lab"
)

func init() {
	register(subcommand{name: "sync", summary: "sync chapters/*.md and notebooks/*.ipynb (--check: fail when they disagree)", run: runSync})
}

func runSync(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("sync", flag.ContinueOnError)
	fs.SetOutput(stderr)
	check := fs.Bool("check", false, "write nothing; exit 1 when a chapter and its notebook disagree")
	chapters := fs.String("chapters", "chapters", "folder of the literate sources (`DIR`/NN-slug.md)")
	notebooks := fs.String("notebooks", "notebooks", "folder of the notebooks (`DIR`/NN-slug.ipynb)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: commlab sync [--check] [--chapters DIR] [--notebooks DIR]")
		fmt.Fprintln(stderr, "Where a chapter and its notebook disagree, the newer file is written into the other.")
		fs.PrintDefaults()
	}
	rest, err := parseInterleaved(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if len(rest) > 0 {
		fmt.Fprintf(stderr, "commlab sync: unexpected argument %q\n", rest[0])
		return 2
	}
	actions, err := lab.Sync(*chapters, *notebooks, *check)
	for _, a := range actions {
		verb := "wrote"
		if *check {
			verb = "stale"
		}
		fmt.Fprintf(stdout, "%s %s (%s)\n", verb, a.Write, a.Reason)
	}
	if err != nil {
		if errors.Is(err, lab.ErrOutOfSync) {
			fmt.Fprintln(stderr, "commlab sync --check: chapters and notebooks disagree; run `commlab sync`")
		} else {
			fmt.Fprintf(stderr, "commlab sync: %v\n", err)
		}
		return 1
	}
	return 0
}
