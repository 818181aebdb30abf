// Package notebook is the Jupyter notebook model commlab reads and writes:
// nbformat 4 (minor 5, with cell ids), the JSON layout Jupyter itself writes
// (one-space indent, sorted keys, sources as lists of lines), validation
// against the official nbformat 4.5 JSON schema, and atomic file writes.
//
// It does not run notebooks (package lab does), convert them to or from
// markdown (notebook/literate) or render them (notebook/export). It sits below those
// three so that each can share the model without importing the runner.
//
// The schema, nbformat.v4.5.schema.json, is the file of that name from
// github.com/jupyter/nbformat (nbformat/v4/, commit 1dd72eb86a78), embedded
// unchanged.
package notebook
