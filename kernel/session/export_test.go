package session

import (
	"reflect"
	"testing"
)

// What the external tests (package session_test, which may import the
// program's generated tables in package cells) reach inside.

// EvalDirect evaluates src in s's interpreter, past the session's own
// import handling.
func EvalDirect(s *Session, src string) error {
	_, err := evalIn(s.in, src)
	return err
}

// Reachable is the packages a session hands yaegi with the table of path.
func Reachable(tables map[string]map[string]reflect.Value, path string) []string {
	return newPackageTables(tables).reachable(path)
}

// RunCells runs cells in s and returns each one's events as text.
func RunCells(t *testing.T, s *Session, cells ...string) []string {
	t.Helper()
	return runCells(t, s, cells...)
}
