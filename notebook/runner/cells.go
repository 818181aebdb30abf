package runner

import (
	"io/fs"
	"reflect"

	"github.com/commlab/commlab/kernel/display"
	"github.com/commlab/commlab/kernel/session"
)

// Cells is what a program lets its notebooks' cells see, and how its runs
// and pages treat them: the runner knows no package, type or exercise
// format of its own. The commlab command hands package cells' View to the
// runner (FileOptions, ExportHTML, WriteFolder) and to the kernel; the zero
// value runs cells on the standard library and kernel/display alone.
type Cells struct {
	// Packages are the compiled packages cells may import (yaegi
	// extract's tables, session.Options.Packages).
	Packages map[string]map[string]reflect.Value
	// Renderers show values of their types as cell results
	// (session.Options.Renderers).
	Renderers map[reflect.Type]display.Renderer
	// Solutions reads the trainer's solutions for a run with
	// FileOptions.Solutions. nil: none. A session never gets them.
	Solutions Solutions
	// IsCheck says whether a code cell checks a learner's answer: a page
	// folds its code under a label saying to open it after answering
	// (export.Options.IsCheck). nil: no cell is a check.
	IsCheck func(source string) bool
	// Chapters are the literate sources a lab folder is written from
	// (WriteFolder): NAME.md at the top, and any files beside them.
	Chapters fs.FS
}

// Solutions is solution mode for a headless run.
type Solutions interface {
	// ForRun finds the book of the notebook or chapter at path, whose code
	// cells are cells, and holds it against them; it says where the book
	// came from. A notebook without blank answer cells gets a nil book: it
	// runs as it is.
	ForRun(path string, cells []string) (book session.SolutionBook, from string, err error)
	// Unused is the error for the answers of book whose blank cell did not
	// run as shipped (ran lists those whose solution ran), nil when every
	// one ran.
	Unused(book session.SolutionBook, ran []string) error
}

// Session is the part of c every session starts with.
func (c Cells) Session() session.Options {
	return session.Options{Packages: c.Packages, Renderers: c.Renderers}
}
