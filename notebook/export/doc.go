// Package export renders notebooks as self-contained HTML pages: prose
// through goldmark (GitHub-flavoured markdown: tables, strikethrough, task
// lists), Go code highlighted by chroma, images inlined as data URIs, HTML
// and SVG outputs as they are, errors with their tracebacks; and an index
// page listing notebooks with the status and run time that lab's runner
// recorded in their metadata, then the series' reading paths (ReadingPaths
// in paths.go, the one place they are written down). Pages load nothing
// from elsewhere.
//
// export does not run notebooks (package lab does) and does not read
// chapters' markdown form (notebook/literate).
package export
