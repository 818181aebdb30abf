package cells

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"

	"github.com/commlab/commlab/chapters"
	"github.com/commlab/commlab/doctor"
	"github.com/commlab/commlab/doctor/report"
	"github.com/commlab/commlab/notebook"
	"github.com/commlab/commlab/notebook/export"
)

// The doctor's report is a page of Markdown and raw HTML
// (doctor/report.PageOf); the doctor never imports the notebook machine, so
// the page becomes a notebook and HTML here, drawn as the chapters are.

// doctorChapters is where the report's chapter names and mentions link:
// each chapter's published source (report.ChapterURL).
var doctorChapters = export.Chapters{Names: export.ChapterPages("", chapters.Names()).Names, URL: report.ChapterURL}

// DoctorNotebook is the report's page as a notebook of markdown and raw
// HTML cells (what notebook/export draws, and Jupyter opens).
func DoctorNotebook(p report.Page) *notebook.Notebook {
	nb := notebook.New()
	for _, b := range p.Blocks {
		if b.Raw {
			nb.Cells = append(nb.Cells, &notebook.Cell{Type: notebook.Raw, Source: b.Source, Metadata: map[string]any{"format": "text/html"}})
		} else {
			nb.Cells = append(nb.Cells, &notebook.Cell{Type: notebook.Markdown, Source: b.Source})
		}
	}
	nb.EnsureIDs()
	return nb
}

// DoctorPage writes the report as one self-contained HTML document.
func DoctorPage(w io.Writer, r *doctor.Report) error {
	p := report.PageOf(r)
	if err := export.Page(w, DoctorNotebook(p), export.Options{Title: p.Title, Chapters: doctorChapters, Chapter: -1}); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	return nil
}

// WriteDoctorFolder writes the report's folder (report.WriteFolder) with
// its page drawn by DoctorPage.
func WriteDoctorFolder(dir string, r *doctor.Report) error {
	var page bytes.Buffer
	if err := DoctorPage(&page, r); err != nil {
		return err
	}
	return report.WriteFolder(dir, r, page.Bytes())
}

// ShowDoctorReport is how commlab doctor ends: the report's folder into
// dir when set (named on stderr), then the report on stdout as JSON or
// text.
func ShowDoctorReport(r *doctor.Report, dir string, asJSON bool, stdout, stderr io.Writer) error {
	if dir != "" {
		if err := WriteDoctorFolder(dir, r); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "commlab doctor: wrote %s\n", filepath.Join(dir, "report.html"))
	}
	if asJSON {
		return r.WriteJSON(stdout)
	}
	return r.WriteText(stdout)
}
