package runner

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/commlab/commlab/atomicfile"
	"github.com/commlab/commlab/kernel/session"
	"github.com/commlab/commlab/notebook/literate"
)

// A lab folder is what `commlab lab DIR` makes from the chapters embedded
// in the binary (handed in as an fs.FS: Cells.Chapters): DIR/chapters/
// (the literate sources, and whatever lies beside them, such as the
// trainer's solutions/), DIR/notebooks/ (the same chapters as notebooks, to
// open in Jupyter) and, once run, DIR/out/.
// DIR/.commlab-lab.json records what was written, so that a later
// `commlab lab` updates what the user left alone and keeps what they
// changed.

// FolderManifest is the file in a lab folder recording what commlab wrote.
const FolderManifest = ".commlab-lab.json"

// FolderAction is what WriteFolder did with one file.
type FolderAction struct {
	// Path is relative to the folder, with slashes:
	// "chapters/01-collectives.md", "notebooks/01-collectives.ipynb".
	Path string
	// Did is "wrote" (new), "updated" (commlab's earlier copy, untouched
	// since), "unchanged", "kept" (changed since commlab wrote it: left as
	// it is) or "overwrote" (changed, and force was given).
	Did string
}

// Folder actions.
const (
	FolderWrote     = "wrote"
	FolderUpdated   = "updated"
	FolderUnchanged = "unchanged"
	FolderKept      = "kept"
	FolderOverwrote = "overwrote"
)

type folderManifest struct {
	// Files maps a path to the SHA-256 of what commlab last wrote there.
	Files map[string]string `json:"files"`
}

// WriteFolder writes the chapters src holds (NAME.md at its top, each also
// written as notebooks/NAME.ipynb), the files beside them, and their
// notebooks into dir (created if missing). A file that exists and differs
// from what commlab last wrote there is the user's: it is kept, unless
// force. Files are written atomically; the manifest last. It returns what
// it did with each file, in path order; an error stops it, keeping what
// was done in the manifest.
func WriteFolder(dir string, src fs.FS, force bool) ([]FolderAction, error) {
	files, err := folderFiles(src)
	if err != nil {
		return nil, err
	}
	manifestPath := filepath.Join(dir, FolderManifest)
	man, err := readManifest(manifestPath)
	if err != nil {
		return nil, err
	}
	var actions []FolderAction
	var werr error
	for _, f := range files {
		a, err := writeFolderFile(dir, f.path, f.data, man, force)
		if err != nil {
			werr = err
			break
		}
		actions = append(actions, a)
	}
	if err := writeManifest(manifestPath, man); err != nil {
		return actions, errors.Join(werr, err)
	}
	return actions, werr
}

type folderFile struct {
	path string
	data []byte
}

// folderFiles are the files of a lab folder: each file of src under
// chapters/, and each chapter's notebook under notebooks/.
func folderFiles(src fs.FS) ([]folderFile, error) {
	var paths []string
	if src != nil {
		err := fs.WalkDir(src, ".", func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				paths = append(paths, p)
			}
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("lab: chapters: %w", err)
		}
	}
	var out []folderFile
	for _, p := range paths {
		data, err := fs.ReadFile(src, p)
		if err != nil {
			return nil, fmt.Errorf("lab: embedded chapter %s: %w", p, err)
		}
		out = append(out, folderFile{path: "chapters/" + p, data: data})
		if path.Dir(p) != "." || !strings.HasSuffix(p, ".md") {
			continue
		}
		nb, err := literate.Parse(data)
		if err != nil {
			return nil, fmt.Errorf("lab: embedded chapter %s: %w", p, err)
		}
		nb.StripOutputs()
		nb.EnsureIDs()
		if nb.Metadata == nil {
			nb.Metadata = map[string]any{}
		}
		nb.Metadata["language_info"] = session.LanguageInfo()
		js, err := nb.Marshal()
		if err != nil {
			return nil, fmt.Errorf("lab: embedded chapter %s: %w", p, err)
		}
		out = append(out, folderFile{path: "notebooks/" + strings.TrimSuffix(p, ".md") + ".ipynb", data: js})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].path < out[j].path })
	return out, nil
}

func writeFolderFile(dir, rel string, data []byte, man *folderManifest, force bool) (FolderAction, error) {
	a := FolderAction{Path: rel}
	target := filepath.Join(dir, filepath.FromSlash(rel))
	sum := digest(data)
	old, err := os.ReadFile(target)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		a.Did = FolderWrote
	case err != nil:
		return a, fmt.Errorf("lab: %w", err)
	case digest(old) == sum:
		man.Files[rel] = sum
		a.Did = FolderUnchanged
		return a, nil
	case digest(old) == man.Files[rel]:
		a.Did = FolderUpdated
	case force:
		a.Did = FolderOverwrote
	default:
		a.Did = FolderKept
		return a, nil
	}
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return a, fmt.Errorf("lab: %w", err)
	}
	if err := atomicfile.Write(target, data, 0o644); err != nil {
		return a, fmt.Errorf("lab: %w", err)
	}
	man.Files[rel] = sum
	return a, nil
}

func digest(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func readManifest(p string) (*folderManifest, error) {
	m := &folderManifest{Files: map[string]string{}}
	b, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return m, nil
	}
	if err != nil {
		return nil, fmt.Errorf("lab: %w", err)
	}
	if err := json.Unmarshal(b, m); err != nil {
		return nil, fmt.Errorf("lab: %s: %w (remove it to start the folder's record afresh; files that differ from commlab's will then be kept)", p, err)
	}
	if m.Files == nil {
		m.Files = map[string]string{}
	}
	return m, nil
}

func writeManifest(p string, m *folderManifest) error {
	b, err := json.MarshalIndent(m, "", " ")
	if err != nil {
		return fmt.Errorf("lab: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("lab: %w", err)
	}
	if err := atomicfile.Write(p, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("lab: %w", err)
	}
	return nil
}

// WriteLab writes the lab's folder (WriteFolder), names on stderr each
// file it kept or overwrote, and counts on stdout what it did:
// "lab     DIR: 40 files (40 wrote)".
func WriteLab(dir string, src fs.FS, force bool, stdout, stderr io.Writer) error {
	acts, err := WriteFolder(dir, src, force)
	counts := map[string]int{}
	for _, a := range acts {
		counts[a.Did]++
		switch a.Did {
		case FolderKept:
			fmt.Fprintf(stderr, "commlab lab: kept %s: you changed it since commlab wrote it (--force overwrites it)\n", filepath.Join(dir, a.Path))
		case FolderOverwrote:
			fmt.Fprintf(stderr, "commlab lab: overwrote %s (--force)\n", filepath.Join(dir, a.Path))
		}
	}
	if err != nil {
		return err
	}
	var summary []string
	for did, n := range counts {
		summary = append(summary, fmt.Sprintf("%d %s", n, did))
	}
	sort.Strings(summary)
	fmt.Fprintf(stdout, "lab     %s: %d files (%s)\n", dir, len(acts), strings.Join(summary, ", "))
	return nil
}
