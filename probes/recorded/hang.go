package recorded

import (
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"strings"
)

// hang holds the recorded hang lab folders (chapter 6): each one as the
// hang lab's driver wrote it, with a run.json for its provenance.
//
//go:embed all:hang
var hang embed.FS

// HangLabs returns the names of the recorded hang lab runs, sorted.
func HangLabs() []string {
	entries, err := fs.ReadDir(hang, "hang")
	if err != nil {
		return nil
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	return names
}

// HangLab opens the recorded hang lab run called name, a folder with
// summary.json, result/, stacks/, fr/ and fr_trace*.txt
// (probes/parse/hanglab reads it) and run.json (its provenance).
func HangLab(name string) (fs.FS, error) {
	for _, n := range HangLabs() {
		if n == name {
			return fs.Sub(hang, "hang/"+name)
		}
	}
	return nil, fmt.Errorf("%w: hang lab %q (have %s)", ErrNotFound, name, strings.Join(HangLabs(), ", "))
}
