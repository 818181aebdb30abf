package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"

	"github.com/commlab/commlab/lab"
	"github.com/commlab/commlab/lab/export"
	"github.com/commlab/commlab/lab/notebook"
)

func init() {
	register(subcommand{name: "export", summary: "write executed notebooks as self-contained HTML with an index", run: runExport})
}

func runExport(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("export", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "out", "write NAME.html and index.html into `DIR`")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: commlab export [--out DIR] [NOTEBOOK.ipynb|CHAPTER.md...]")
		fmt.Fprintln(stderr, "With no files, exports every DIR/*.ipynb (what `commlab run --out DIR` wrote).")
		fs.PrintDefaults()
	}
	files, err := parseInterleaved(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if len(files) == 0 {
		files, _ = filepath.Glob(filepath.Join(*out, "*.ipynb"))
		if len(files) == 0 {
			fmt.Fprintf(stderr, "commlab export: no notebooks in %s (run `commlab run --out %s` first, or name files)\n", *out, *out)
			return 1
		}
	}
	if err := exportNotebooks(files, *out, stdout); err != nil {
		fmt.Fprintf(stderr, "commlab export: %v\n", err)
		return 1
	}
	return 0
}

// exportNotebooks writes DIR/NAME.html for each file and DIR/index.html
// listing them and every other executed notebook already in DIR.
func exportNotebooks(files []string, outDir string, stdout io.Writer) error {
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
		nb, err := lab.Load(f)
		if err != nil {
			return err
		}
		page := name + ".html"
		entries = append(entries, export.Entry{Title: export.Title(nb, name), Href: page, Run: export.RunOf(nb)})
		if !render[name] {
			continue
		}
		var b bytes.Buffer
		if err := export.Page(&b, nb, export.Options{BaseDir: filepath.Dir(f)}); err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
		if err := notebook.WriteFileAtomic(filepath.Join(outDir, page), b.Bytes()); err != nil {
			return err
		}
	}
	var b bytes.Buffer
	if err := export.Index(&b, "commlab chapters", entries); err != nil {
		return err
	}
	index := filepath.Join(outDir, "index.html")
	if err := notebook.WriteFileAtomic(index, b.Bytes()); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "html    %d pages, index %s\n", len(render), relPath(index))
	return nil
}
