package notebook

import (
	"fmt"
	"os"
	"strings"

	"github.com/commlab/commlab/atomicfile"
)

// ReadFile reads and parses a notebook file.
func ReadFile(path string) (*Notebook, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("notebook: %w", err)
	}
	nb, err := Parse(data)
	if err != nil {
		return nil, &fileError{path: path, err: err}
	}
	return nb, nil
}

// fileError names the file a parse error came from, saying "notebook:"
// once: "notebook: a.ipynb: not an nbformat 4 notebook: nbformat 3".
type fileError struct {
	path string
	err  error
}

func (e *fileError) Error() string {
	return "notebook: " + e.path + ": " + strings.TrimPrefix(e.err.Error(), "notebook: ")
}

func (e *fileError) Unwrap() error { return e.err }

// WriteFile encodes nb, checks it against the nbformat schema and writes it
// atomically.
func WriteFile(path string, nb *Notebook) error {
	data, err := nb.Marshal()
	if err != nil {
		return err
	}
	if err := Validate(data); err != nil {
		return err
	}
	return WriteFileAtomic(path, data)
}

// WriteFileAtomic writes data to a temporary file beside path and renames
// it over path, so readers see the old file or the new one, never a part.
func WriteFileAtomic(path string, data []byte) error {
	if err := atomicfile.Write(path, data, 0o644); err != nil {
		return fmt.Errorf("notebook: %w", err)
	}
	return nil
}
