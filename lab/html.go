package lab

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/commlab/commlab/lab/export"
	"github.com/commlab/commlab/lab/notebook"
)

// ExportHTML writes outDir/NAME.html for each notebook or chapter file, and
// outDir/index.html listing them with every other executed notebook already
// in outDir (what an earlier `commlab run --out outDir` wrote), each with its
// run's status. outDir is created if missing. It returns how many pages
// it wrote and the index's path.
func ExportHTML(files []string, outDir string) (pages int, index string, err error) {
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return 0, "", fmt.Errorf("lab: %w", err)
	}
	byName := map[string]string{}
	others, _ := filepath.Glob(filepath.Join(outDir, "*.ipynb"))
	for _, f := range others {
		byName[strings.TrimSuffix(filepath.Base(f), ".ipynb")] = f
	}
	render := map[string]bool{}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), filepath.Ext(f))
		byName[name] = f
		render[name] = true
	}
	names := make([]string, 0, len(byName))
	for n := range byName {
		names = append(names, n)
	}
	sort.Strings(names)
	var entries []export.Entry
	for _, name := range names {
		f := byName[name]
		nb, err := Load(f)
		if err != nil {
			return 0, "", err
		}
		page := name + ".html"
		entries = append(entries, export.Entry{Title: export.Title(nb, name), Href: page, Run: export.RunOf(nb)})
		if !render[name] {
			continue
		}
		var b bytes.Buffer
		if err := export.Page(&b, nb, export.Options{BaseDir: filepath.Dir(f)}); err != nil {
			return 0, "", fmt.Errorf("%s: %w", f, err)
		}
		if err := notebook.WriteFileAtomic(filepath.Join(outDir, page), b.Bytes()); err != nil {
			return 0, "", err
		}
	}
	var b bytes.Buffer
	if err := export.Index(&b, "commlab chapters", entries); err != nil {
		return 0, "", err
	}
	index = filepath.Join(outDir, "index.html")
	if err := notebook.WriteFileAtomic(index, b.Bytes()); err != nil {
		return 0, "", err
	}
	return len(render), index, nil
}
