package main

import "runtime/debug"

// version reports the module version the binary was built from, as
// `go install module@version` records it, or "devel" for a local build.
func version() string {
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" && info.Main.Version != "(devel)" {
		return info.Main.Version
	}
	return "devel"
}
