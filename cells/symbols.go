package cells

import "reflect"

// Symbols maps "import/path/name" to the package's exported symbols, as
// yaegi's interp.Use expects. The generated files (`yaegi extract`, see
// generate.go) fill it; View hands it to every session.
var Symbols = map[string]map[string]reflect.Value{}

//go:generate go run generate.go -out .
