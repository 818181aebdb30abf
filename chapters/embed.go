// Package chapters carries the lab's chapters (NN-slug.md, the literate
// sources), embedded in the commlab binary, so that a binary from
// `go install github.com/commlab/commlab@latest` can write them out
// (`commlab lab DIR`) and the doctor's report can name and link them.
//
// The trainer's answers are not here: they stay in the repository's
// trainer folder (package trainer/solutions), out of every learner's
// binary.
//
// It owns the embedded copies only: it does not parse, run or sync
// chapters (lab, notebook/literate do). Standard library only.
package chapters

import (
	"embed"
	"io/fs"
	"path"
	"sort"
	"strings"
)

// The chapters, Markdown only.
//
//go:embed *.md
var files embed.FS

// FS is the embedded folder: the chapters.
func FS() fs.FS { return files }

// Files is every embedded file a lab folder needs, as paths relative to
// the chapters folder in lexical order: the chapters ("01-collectives.md").
func Files() []string {
	var out []string
	_ = fs.WalkDir(files, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if isChapter(p) {
			out = append(out, p)
		}
		return nil
	})
	sort.Strings(out)
	return out
}

// Names are the chapters' names without extension, "00-tour" to
// "07-inference", in order.
func Names() []string {
	var out []string
	for _, f := range Files() {
		if isChapter(f) {
			out = append(out, strings.TrimSuffix(f, ".md"))
		}
	}
	return out
}

// Read returns the embedded file at p (a path Files lists).
func Read(p string) ([]byte, error) { return files.ReadFile(p) }

// isChapter says whether p is a chapter: NN-slug.md at the top.
func isChapter(p string) bool {
	return path.Dir(p) == "." && strings.HasSuffix(p, ".md") && len(p) > 3 &&
		p[0] >= '0' && p[0] <= '9' && p[1] >= '0' && p[1] <= '9' && p[2] == '-'
}
