package atomicfile_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/commlab/commlab/atomicfile"
)

func ExampleWrite() {
	dir, _ := os.MkdirTemp("", "atomicfile")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "out.txt")
	_ = atomicfile.Write(path, []byte("old"), 0o644)
	if err := atomicfile.Write(path, []byte("new"), 0o644); err != nil {
		fmt.Println(err)
	}
	data, _ := os.ReadFile(path)
	entries, _ := os.ReadDir(dir)
	fmt.Println(string(data), len(entries))
	// Output: new 1
}
