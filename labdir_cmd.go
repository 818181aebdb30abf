package main

import (
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"

	"github.com/commlab/commlab/lab"
)

// This file holds `commlab lab [DIR]`: the lab from a binary alone (go
// install), the same as `make lab` in a clone.

func runLab(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("commlab lab", stderr, "usage: commlab lab [DIR] [--force] [--no-install] [--no-run]",
		"Writes the chapters this binary carries into DIR/chapters and DIR/notebooks, registers the kernel",
		"(commlab install --user) and runs every chapter headless into DIR/out, as make lab does.",
		"A file you changed since commlab wrote it is kept (say so with --force to overwrite it).")
	force := fs.Bool("force", false, "overwrite chapters and notebooks you changed")
	noInstall := fs.Bool("no-install", false, "do not register the Jupyter kernel")
	noRun := fs.Bool("no-run", false, "write the files only; do not run the chapters")
	rest, status, ok := parseFlags(fs, args)
	if !ok {
		return status
	}
	if len(rest) > 1 {
		return fail(fs, stderr, 2, "one folder at most, got %d", len(rest))
	}
	dir := "commlab-lab"
	if len(rest) == 1 {
		dir = rest[0]
	}
	acts, err := lab.WriteFolder(dir, *force)
	counts := map[string]int{}
	for _, a := range acts {
		counts[a.Did]++
		switch a.Did {
		case lab.FolderKept:
			fmt.Fprintf(stderr, "commlab lab: kept %s: you changed it since commlab wrote it (--force overwrites it)\n", filepath.Join(dir, a.Path))
		case lab.FolderOverwrote:
			fmt.Fprintf(stderr, "commlab lab: overwrote %s (--force)\n", filepath.Join(dir, a.Path))
		}
	}
	if err != nil {
		return fail(fs, stderr, 1, "%v", err)
	}
	var summary []string
	for did, n := range counts {
		summary = append(summary, fmt.Sprintf("%d %s", n, did))
	}
	sort.Strings(summary)
	fmt.Fprintf(stdout, "lab     %s: %d files (%s)\n", dir, len(acts), strings.Join(summary, ", "))
	if !*noInstall {
		if s := runInstall([]string{"--user"}, stdout, stderr); s != 0 {
			return s
		}
	}
	if !*noRun {
		files, _ := filepath.Glob(filepath.Join(dir, "chapters", "*.md"))
		if s := runRun(append([]string{"--out", filepath.Join(dir, "out"), "--html"}, files...), stdout, stderr); s != 0 {
			return s
		}
		fmt.Fprintf(stdout, "open %s in a browser\n", filepath.Join(dir, "out", "index.html"))
	}
	fmt.Fprintf(stdout, "live notebooks: jupyter notebook %s (classic Notebook, widgets included) or jupyter lab %s\n",
		filepath.Join(dir, "notebooks"), filepath.Join(dir, "notebooks"))
	return 0
}
