package recorded

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"

	"github.com/commlab/commlab/probes"
)

// data holds the runs (data/*.json) and, in folders beside them, the raw
// files a run's readers need (data/torch-overlap-h200x1/: torch.profiler
// traces).
//
//go:embed data
var data embed.FS

// ErrNotFound says no recorded run has the name asked for.
var ErrNotFound = errors.New("recorded: no such run")

// List returns the names of the recorded runs (file names without .json),
// sorted.
func List() []string {
	return entryNames(data, "data", func(e fs.DirEntry) (string, bool) {
		n, ok := strings.CutSuffix(e.Name(), ".json")
		return n, ok && !e.IsDir()
	})
}

// entryNames lists the entries of dir in fsys that keep accepts, under the
// names it gives them, sorted; nil when dir cannot be read. The runs, the
// public outputs and the hang labs are each a kind of entry in a folder.
func entryNames(fsys fs.FS, dir string, keep func(fs.DirEntry) (string, bool)) []string {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil
	}
	var names []string
	for _, e := range entries {
		if n, ok := keep(e); ok {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

// Load decodes the recorded run called name (with or without .json).
func Load(name string) (*probes.Run, error) {
	name = strings.TrimSuffix(path.Base(name), ".json")
	b, err := data.ReadFile("data/" + name + ".json")
	if err != nil {
		return nil, fmt.Errorf("%w: %q (have %s)", ErrNotFound, name, strings.Join(List(), ", "))
	}
	r, err := probes.ReadRun(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("recorded: %s: %w", name, err)
	}
	return r, nil
}

// Match returns the names that start with prefix, e.g. "nccl-h200x1-proto".
func Match(prefix string) []string {
	var out []string
	for _, n := range List() {
		if strings.HasPrefix(n, prefix) {
			out = append(out, n)
		}
	}
	return out
}

// Files returns the recorded files that are not runs, rooted at data/: the
// folders of raw outputs kept beside a run (the overlap benchmark's
// torch.profiler traces under torch-overlap-h200x1/), for the package that
// reads that format.
func Files() fs.FS {
	sub, _ := fs.Sub(data, "data") // fails only for an invalid path; "data" is valid
	return sub
}

// Adopt returns stored, the run recorded under a name, to stand for read,
// the run a package read back from the raw files kept beside it (Files()):
// the stored run carries the recording's provenance (the command that
// recorded it, the script's checksum), and takes read's samples when it
// holds none itself.
func Adopt(stored, read *probes.Run) *probes.Run {
	if len(stored.Samples) == 0 {
		stored.Samples = read.Samples
	}
	return stored
}

// LoadBeside loads the recorded run called name for a package that reads
// its raw files back itself (probes/c10dlab, probes/overlap): load reads
// the folder name/ of Files(), and the run in the result (*run(res), when
// there is one) adopts the stored provenance (Adopt). A name not recorded
// fails with ErrNotFound, prefixed by pkg.
func LoadBeside[R any](pkg, name string, load func(fsys fs.FS, dir string) (*R, error), run func(*R) **probes.Run) (*R, error) {
	stored, err := Load(name)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", pkg, err)
	}
	res, err := load(Files(), name)
	if res != nil {
		if r := run(res); *r != nil {
			*r = Adopt(stored, *r)
		}
	}
	return res, err
}
