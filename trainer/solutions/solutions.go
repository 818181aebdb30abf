// Package solutions holds the trainer's answers to the chapters'
// exercises: one Markdown file per chapter, named as the chapter is
// (01-collectives.md), in the format exercise's ParseSolutions reads.
// They are embedded in the binary so that `commlab run --solutions` and the
// kernel's %solutions find them wherever commlab runs; a chapter's own
// folder may hold newer copies (solutions/NN-slug.md beside it), which the
// runner prefers.
//
// The package only stores the files; package cells reads them (through
// exercise) and kernel/session applies them. The files are embedded once, by package
// chapters; this package reads them from there.
package solutions

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/commlab/commlab/chapters"
)

// files is the solutions folder of the chapters' one embedded copy.
var files = mustSub(chapters.FS(), "solutions")

func mustSub(f fs.FS, dir string) fs.FS {
	sub, err := fs.Sub(f, dir)
	if err != nil {
		// fs.Sub fails only on an invalid path name, a constant here.
		panic(err)
	}
	return sub
}

// ErrNoSolutions says no embedded solutions file belongs to a chapter.
var ErrNoSolutions = errors.New("solutions: no solutions for this chapter")

// Names lists the chapters that have solutions ("01-collectives", ...),
// sorted.
func Names() []string {
	entries, err := fs.ReadDir(files, ".")
	if err != nil {
		return nil
	}
	var names []string
	for _, e := range entries {
		if n, ok := strings.CutSuffix(e.Name(), ".md"); ok && !e.IsDir() {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

// Find returns the chapter name a reference means and its solutions file:
// the chapter's name ("01-collectives"), its number ("1" or "01"), or a
// path to the chapter or its notebook ("chapters/01-collectives.md",
// "notebooks/01-collectives.ipynb").
func Find(ref string) (name string, src []byte, err error) {
	base := path.Base(strings.ReplaceAll(strings.TrimSpace(ref), "\\", "/"))
	base = strings.TrimSuffix(strings.TrimSuffix(base, ".md"), ".ipynb")
	names := Names()
	for _, n := range names {
		if n == base || isNumber(base) && numberOf(n) == numberOf(base) {
			src, err := fs.ReadFile(files, n+".md")
			if err != nil {
				return "", nil, fmt.Errorf("solutions: %s: %w", n, err)
			}
			return n, src, nil
		}
	}
	return "", nil, fmt.Errorf("%w: %q (have %s)", ErrNoSolutions, ref, strings.Join(names, ", "))
}

// numberOf is a chapter name's leading number ("01-collectives": 1), or -1.
func numberOf(name string) int {
	digits, _, _ := strings.Cut(name, "-")
	n, err := strconv.Atoi(digits)
	if err != nil || n < 0 {
		return -1
	}
	return n
}

func isNumber(s string) bool {
	_, err := strconv.Atoi(s)
	return err == nil
}
