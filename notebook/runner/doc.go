// Package runner runs notebooks headless and keeps chapters and notebooks in
// step. Run executes a notebook's code cells top to bottom through the
// kernel's own executor (kernel/session), so the outputs it writes are the
// ones the kernel sends to Jupyter; NewJob loads a notebook and, through
// InjectParameters, sets -p values after the cell tagged "parameters"
// (papermill's convention), typed from that cell's Go declarations, once
// per run; RunFile runs a job into an output folder; Progress shows a live line on a terminal; Sync
// writes chapters/NN-slug.md into notebooks/NN-slug.ipynb or back, the
// newer winning.
//
// What cells see comes in as Cells (FileOptions.Cells, ExportHTML,
// WriteFolder): the compiled packages cells may import, the renderers of
// their values, the trainer's solutions, which cells are exercise checks,
// and the chapters a lab folder is written from. The runner imports nothing
// of the GPU subject; the commlab command hands it package cells' View.
//
// Exercises: FileOptions.Solutions runs a chapter in solution mode, each
// blank answer cell running the trainer's solution (Cells.Solutions finds
// them; the session applies them). A live kernel never gets them.
//
// The notebook model is notebook, the markdown form notebook/literate and the
// HTML pages notebook/export; ExportHTML writes executed notebooks as those pages
// with an index. The commands run, sync and export (package main) sit on
// top.
package runner
