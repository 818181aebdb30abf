package recorded

import (
	"embed"
	"fmt"
	"io/fs"
	"strings"

	"github.com/commlab/commlab/probes"
)

// hang holds the recorded hang lab folders (chapter 6): each one as the
// hang lab's driver wrote it, with a run.json for its provenance.
//
//go:embed all:hang
var hang embed.FS

// HangLabs returns the names of the recorded hang lab runs, sorted.
func HangLabs() []string {
	return entryNames(hang, "hang", func(e fs.DirEntry) (string, bool) { return e.Name(), e.IsDir() })
}

// HangLab opens the recorded hang lab run called name, a folder with
// summary.json, result/, stacks/, fr/ and fr_trace*.txt
// (parse/hanglab reads it) and run.json (its provenance).
func HangLab(name string) (fs.FS, error) {
	for _, n := range HangLabs() {
		if n == name {
			return fs.Sub(hang, "hang/"+name)
		}
	}
	return nil, fmt.Errorf("%w: hang lab %q (have %s)", ErrNotFound, name, strings.Join(HangLabs(), ", "))
}

// HangLabRun returns the provenance of the recorded hang lab run called
// name: its run.json.
func HangLabRun(name string) (*probes.Run, error) {
	fsys, err := HangLab(name)
	if err != nil {
		return nil, err
	}
	f, err := fsys.Open("run.json")
	if err != nil {
		return nil, fmt.Errorf("recorded: hang lab %s: %w", name, err)
	}
	defer f.Close()
	r, err := probes.ReadRun(f)
	if err != nil {
		return nil, fmt.Errorf("recorded: hang lab %s: %w", name, err)
	}
	return r, nil
}
