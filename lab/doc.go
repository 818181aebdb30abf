// Package lab runs notebooks headless: it executes a notebook's code cells
// top to bottom through the kernel's own executor (kernel/session), so the
// outputs it writes are the ones the kernel sends to Jupyter; it injects
// parameters (papermill's convention, typed from the Go declarations of the
// cell tagged "parameters"); and it reports progress on a terminal.
//
// The notebook model lives in lab/notebook, the markdown form of chapters in
// lab/literate and the HTML export in lab/export; lab does not render or
// convert anything itself.
package lab
