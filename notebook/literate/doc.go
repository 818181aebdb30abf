// Package literate converts between a chapter's literate source,
// chapters/NN-slug.md, and its notebook, notebooks/NN-slug.ipynb.
//
// The markdown is jupytext's "markdown" format (format_version 1.3), so the
// chapters open in JupyterLab with jupytext as well as in commlab: a YAML
// header whose `jupyter:` entry is the notebook metadata (kernelspec,
// jupytext), ```go fences for code cells with their metadata as key=value
// pairs after the language (```go tags=["parameters"]), prose for markdown
// cells (split at two consecutive blank lines), `<!-- #region ... -->` for a
// markdown cell that has metadata or would not read back as one cell, and
// `<!-- #raw -->` for raw cells. Format writes what Parse reads back to the
// same cells, sources and metadata; cell ids and outputs are not kept in
// markdown, and StripVolatile drops what a run or JupyterLab adds (timing,
// language_info), as jupytext's default filters do.
//
// The package does not read or write files, run cells or render HTML; the
// notebook model is notebook.
package literate
