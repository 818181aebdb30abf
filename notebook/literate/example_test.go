package literate_test

import (
	"fmt"

	"github.com/commlab/commlab/notebook/literate"
)

func ExampleParse() {
	chapter := "# Title\n\nProse.\n\n```go tags=[\"parameters\"]\nn := 8\n```\n"
	nb, err := literate.Parse([]byte(chapter))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range nb.Cells {
		fmt.Printf("%s %v %q\n", c.Type, c.Tags(), c.Source)
	}
	// Output:
	// markdown [] "# Title\n\nProse."
	// code [parameters] "n := 8"
}
