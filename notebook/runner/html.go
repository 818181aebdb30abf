package runner

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/commlab/commlab/notebook"
	"github.com/commlab/commlab/notebook/export"
)

// ExportHTML writes outDir/NAME.html for each notebook or chapter file, and
// outDir/index.html listing them with every other executed notebook already
// in outDir (what an earlier `commlab run --out outDir` wrote), each with its
// run's status. outDir is created if missing; cells says which code cells
// are checks (Cells.IsCheck). It returns how many pages it wrote and the
// index's path.
func ExportHTML(files []string, outDir string, cells Cells) (pages int, index string, err error) {
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
	names := slices.Sorted(maps.Keys(byName))
	var entries []export.Entry
	notebooks := map[string]*notebook.Notebook{}
	for _, name := range names {
		nb, err := Load(byName[name])
		if err != nil {
			return 0, "", err
		}
		notebooks[name] = nb
		entries = append(entries, export.Entry{Title: export.Title(nb, name), Href: name + ".html", Run: export.RunOf(nb)})
	}
	chapters := export.ChapterPages("", names)
	for i, name := range names {
		if !render[name] {
			continue
		}
		f := byName[name]
		own, ok := export.ChapterNumber(name)
		if !ok {
			own = -1
		}
		opts := export.Options{BaseDir: filepath.Dir(f), Chapters: chapters, Chapter: own, Nav: pageNav(entries, i), IsCheck: cells.IsCheck}
		var b bytes.Buffer
		if err := export.Page(&b, notebooks[name], opts); err != nil {
			return 0, "", fmt.Errorf("%s: %w", f, err)
		}
		if err := notebook.WriteFileAtomic(filepath.Join(outDir, name+".html"), b.Bytes()); err != nil {
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

// pageNav links page i of entries (in name order) to the index and to the
// chapter pages before and after it.
func pageNav(entries []export.Entry, i int) *export.Nav {
	nav := &export.Nav{Index: export.Link{Href: "index.html", Title: "all chapters"}}
	label := func(e export.Entry) string {
		if n, ok := export.ChapterNumber(e.Href); ok {
			if short, ok := export.SeriesChapters[n]; ok {
				return fmt.Sprintf("%d. %s", n, short)
			}
		}
		return e.Title
	}
	if _, ok := export.ChapterNumber(entries[i].Href); !ok {
		return nav
	}
	for j := i - 1; j >= 0; j-- {
		if _, ok := export.ChapterNumber(entries[j].Href); ok {
			nav.Prev = export.Link{Href: entries[j].Href, Title: label(entries[j])}
			break
		}
	}
	for j := i + 1; j < len(entries); j++ {
		if _, ok := export.ChapterNumber(entries[j].Href); ok {
			nav.Next = export.Link{Href: entries[j].Href, Title: label(entries[j])}
			break
		}
	}
	return nav
}
