package runner_test

import (
	"fmt"

	"github.com/commlab/commlab/notebook"
	"github.com/commlab/commlab/notebook/runner"
)

func ExampleParameters() {
	params, err := runner.Parameters("n := 8\nalpha := 2.5e-6\nlink := \"nvlink\"")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, p := range params {
		fmt.Printf("%s %s = %s\n", p.Name, p.Type, p.Default)
	}
	// Output:
	// n int = 8
	// alpha float64 = 2.5e-6
	// link string = "nvlink"
}

func ExampleInjectParameters() {
	nb := notebook.New()
	nb.Cells = []*notebook.Cell{
		{Type: notebook.Code, Source: "n := 8", Metadata: map[string]any{"tags": []any{"parameters"}}},
		{Type: notebook.Code, Source: "fmt.Println(n)"},
	}
	if err := runner.InjectParameters(nb, map[string]string{"n": "16"}); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(nb.Cells[1].Tags(), nb.Cells[1].Source)
	fmt.Println(runner.InjectParameters(nb, map[string]string{"n": "many"}))
	// Output:
	// [injected-parameters] // Parameters
	// n = 16
	// lab: bad parameter: parameter n is int: "many": strconv.ParseInt: parsing "many": invalid syntax
}
