// Package session runs notebook cells: Go source in, a stream of events out
// (stream text, displays, a result, an error). It is the one executor both
// the Jupyter kernel and the headless runner use, and the one package that
// imports the yaegi interpreter.
//
// A cell may mix imports, declarations and statements in any order; session
// splits it into groups yaegi accepts, keeps the cell's own line and column
// in every error, polyfills what yaegi v0.16.1 lacks (min, max, clear, range
// over an integer, the generic functions of slices, maps and cmp), gives
// generic calls the type arguments go/types infers (yaegi infers them by
// position), adds missing imports of known packages as goimports would,
// recovers panics (also in goroutines a cell starts) into error events at
// the line of the statement that raised them (a marker set before each
// statement), and makes a redefinition reach code compiled before it:
// functions that use a redefined name are compiled again (one that no
// longer compiles says so when called), and a redefined type rebuilds the
// interpreter from the recorded declarations, keeping the values of
// variables whose types did not change. Names a block declares get names
// of their own, as Go's scopes keep them apart (yaegi would reuse a
// session variable's), so that running a chapter again means what it did
// the first time.
//
// session does not speak Jupyter's protocol (package kernel does), does not
// know notebooks (package notebook/runner does), and knows no package, type
// or exercise format of the program it runs in: the compiled packages cells
// may import and the renderers of their values come in through Options,
// and a headless run's trainer's solutions through SetSolutions
// (SolutionBook); commlab's come from package cells.
package session
