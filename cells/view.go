package cells

import (
	"github.com/commlab/commlab/chapters"
	"github.com/commlab/commlab/exercise"
	"github.com/commlab/commlab/notebook/runner"
)

// View is what commlab's cells see and how its runs and pages treat them:
// the compiled packages they may import (Symbols), the renderers of the
// domain types, where the trainer's solutions are found, which cells are exercise checks,
// and the chapters a lab folder is written from. The commlab command hands
// it to the kernel (View().Session()) and to the runner.
func View() runner.Cells {
	return runner.Cells{
		Packages:  Symbols,
		Renderers: renderers(),
		Solutions: TrainerSolutions(""),
		IsCheck:   exercise.IsCheck,
		Chapters:  chapters.FS(),
	}
}
