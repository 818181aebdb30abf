// Package ci holds the project's own policy checks, run by `go test`: the
// dependency levels of ARCHITECTURE.md, one package per outside system, and
// the reproducibility of generated code. It also keeps a workflow users can
// copy to re-run the notebooks in their own CI.
package ci
