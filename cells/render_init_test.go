package cells

import "github.com/commlab/commlab/kernel/display"

// The package's own tests draw values as a session does: with the
// renderers registered (a session registers View's when it starts).
func init() {
	for t, r := range renderers() {
		display.RegisterRenderer(t, r)
	}
}
