// Package solutions finds and reads the trainer's answers to the
// chapters' exercises: a folder of Markdown files, one per chapter, named
// as the chapter is (01-collectives.md), in the format exercise's
// ParseSolutions reads. A clone keeps them here, in trainer/solutions (the
// files beside this one).
//
// The answers are the trainer's: the commlab binary does not carry them,
// so neither a learner's binary nor a learner's kernel can print them.
// `commlab run --solutions [DIR]` and `commlab course [--solutions DIR]`
// read them at run time, from DIR or from the clone's trainer folder
// (Locate).
//
// The package only finds the files; cells and course parse them (through
// exercise), and kernel/session applies them in a headless run.
package solutions

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Folder is where a clone keeps the trainer's answers, relative to its
// root.
const Folder = "trainer/solutions"

// ErrNoSolutions says the trainer's folder has no solutions file for a
// chapter.
var ErrNoSolutions = errors.New("solutions: no solutions for this chapter")

// ErrNoFolder says no trainer's folder was found where it was looked for.
var ErrNoFolder = errors.New("solutions: no trainer's folder")

// Dir is the solutions folder a user names: dir itself, or dir/solutions
// when dir is a trainer folder that holds one (`--solutions trainer`).
func Dir(dir string) (string, error) {
	if info, err := os.Stat(filepath.Join(dir, "solutions")); err == nil && info.IsDir() {
		return filepath.Join(dir, "solutions"), nil
	}
	info, err := os.Stat(dir)
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrNoFolder, err)
	}
	if !info.IsDir() {
		return "", fmt.Errorf("%w: %s is not a folder", ErrNoFolder, dir)
	}
	return dir, nil
}

// Locate finds a clone's solutions folder (Folder) from a path inside the
// clone: the first of from's folder (from itself when it is one) and the
// folders above it that holds trainer/solutions. So `--solutions` alone
// finds the answers of chapters/NN-slug.md, notebooks/NN-slug.ipynb or a
// copy in the clone's out/.
func Locate(from string) (string, error) {
	abs, err := filepath.Abs(from)
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrNoFolder, err)
	}
	dir := abs
	if info, err := os.Stat(abs); err != nil || !info.IsDir() {
		dir = filepath.Dir(abs)
	}
	start := dir
	for {
		cand := filepath.Join(dir, filepath.FromSlash(Folder))
		if info, err := os.Stat(cand); err == nil && info.IsDir() {
			return cand, nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			break
		}
		dir = up
	}
	return "", fmt.Errorf("%w: no %s in %s or a folder above it (the binary carries no solutions: run from a clone of the repository, or name the folder: --solutions DIR)",
		ErrNoFolder, Folder, start)
}

// Names lists the chapters dir has solutions for ("01-collectives", ...),
// sorted.
func Names(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNoFolder, err)
	}
	var names []string
	for _, e := range entries {
		if n, ok := strings.CutSuffix(e.Name(), ".md"); ok && !e.IsDir() {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names, nil
}

// Find returns the chapter name a reference means and its solutions file
// in dir: the chapter's name ("01-collectives"), its number ("1" or "01"),
// or a path to the chapter or its notebook ("chapters/01-collectives.md",
// "notebooks/01-collectives.ipynb").
func Find(dir, ref string) (name string, src []byte, err error) {
	base := path.Base(strings.ReplaceAll(strings.TrimSpace(ref), "\\", "/"))
	base = strings.TrimSuffix(strings.TrimSuffix(base, ".md"), ".ipynb")
	names, err := Names(dir)
	if err != nil {
		return "", nil, err
	}
	for _, n := range names {
		if n == base || isNumber(base) && numberOf(n) == numberOf(base) {
			src, err := os.ReadFile(filepath.Join(dir, n+".md"))
			if err != nil {
				return "", nil, fmt.Errorf("solutions: %s: %w", n, err)
			}
			return n, src, nil
		}
	}
	return "", nil, fmt.Errorf("%w: %q in %s (have %s)", ErrNoSolutions, ref, dir, strings.Join(names, ", "))
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
