package runner

import "github.com/commlab/commlab/notebook"

// codeSources lists nb's code cells' sources.
func codeSources(nb *notebook.Notebook) []string {
	var cells []string
	for _, c := range nb.Cells {
		if c.Type == notebook.Code {
			cells = append(cells, c.Source)
		}
	}
	return cells
}
