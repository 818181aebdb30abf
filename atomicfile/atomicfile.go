// Package atomicfile writes a file so that a reader sees the old content or
// the new, never a part of it: the data goes to a temporary file beside the
// target, is synced, and renamed over it. Every file commlab writes as an
// output (executed notebooks, chapters, HTML pages, charts) goes through it.
//
// It owns nothing else: callers choose paths and encode the data. Standard
// library only, so any package may import it.
package atomicfile

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Write writes data to path atomically with permissions perm.
func Write(path string, data []byte, perm fs.FileMode) error {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".*.tmp")
	if err != nil {
		return fmt.Errorf("atomicfile: write %s: %w", path, err)
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, perm)
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("atomicfile: write %s: %w", path, err)
	}
	return nil
}
