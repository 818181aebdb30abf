package literate

import "github.com/commlab/commlab/notebook"

// Metadata a run or a front end adds and a chapter does not keep, much as
// jupytext's default metadata filters drop them: saving a notebook from
// JupyterLab then does not make its chapter differ.
var (
	volatileNotebookMetadata = []string{"language_info", "widgets", notebook.CommlabKey, "toc", "varInspector"}
	volatileCellMetadata     = []string{"execution", "ExecuteTime", "collapsed", "scrolled", "trusted", "autoscroll"}
)

// StripVolatile removes outputs, execution counts, the volatile metadata
// above and an empty tags list (which a chapter does not write), leaving
// what a chapter holds.
func StripVolatile(nb *notebook.Notebook) {
	nb.StripOutputs()
	for _, k := range volatileNotebookMetadata {
		delete(nb.Metadata, k)
	}
	for _, c := range nb.Cells {
		for _, k := range volatileCellMetadata {
			delete(c.Metadata, k)
		}
		if tags, ok := c.Metadata["tags"].([]any); ok && len(tags) == 0 {
			delete(c.Metadata, "tags")
		}
	}
}
