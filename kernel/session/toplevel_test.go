package session

import (
	"testing"
)

// TestTopLevelStatements: a cell's top level takes every statement Go
// takes in a function body; where the cell model cannot, the error says
// what to write instead.
func TestTopLevelStatements(t *testing.T) {
	tests := []struct {
		name string
		cell string
		want string
	}{
		{"for without condition", "n := 0\nfor {\n\tn++\n\tif n == 3 {\n\t\tbreak\n\t}\n}\nn", "=> 3\n"},
		{"for with condition", "n := 0\nfor n < 3 {\n\tn++\n}\nn", "=> 3\n"},
		{"three-clause for", "s := 0\nfor i := 0; i < 4; i++ {\n\ts += i\n}\ns", "=> 6\n"},
		{"for with empty condition", "s := 0\nfor i := 0; ; i++ {\n\tif i > 3 {\n\t\tbreak\n\t}\n\ts += i\n}\ns", "=> 6\n"},
		{"for with empty clauses", "n := 0\nfor ; ; {\n\tn++\n\tbreak\n}\nn", "=> 1\n"},
		{"for with init only", "n := 0\nfor i := 5; ; {\n\tn = i\n\tbreak\n}\nn", "=> 5\n"},
		{"for with post only", "i := 0\nfor ; i < 3; i++ {\n}\ni", "=> 3\n"},
		{"range over int", "s := 0\nfor i := range 4 {\n\ts += i\n}\ns", "=> 6\n"},
		{"range without variables", "n := 0\nfor range 3 {\n\tn++\n}\nn", "=> 3\n"},
		{"range over map", "m := map[string]int{\"a\": 1, \"b\": 2}\ns := 0\nfor _, v := range m {\n\ts += v\n}\ns", "=> 3\n"},
		{"range over channel", "ch := make(chan int, 2)\nch <- 1\nch <- 2\nclose(ch)\ns := 0\nfor v := range ch {\n\ts += v\n}\ns", "=> 3\n"},
		{"if else if else", "x := 2\nif x == 1 {\n\tfmt.Println(\"one\")\n} else if x == 2 {\n\tfmt.Println(\"two\")\n} else {\n\tfmt.Println(\"many\")\n}", "two\n"},
		{"if with a statement", "m := map[string]int{\"a\": 1}\nif v, ok := m[\"a\"]; ok {\n\tfmt.Println(v)\n}", "1\n"},
		{"switch without expression", "x := 5\nswitch {\ncase x > 3:\n\tfmt.Println(\"big\")\ndefault:\n\tfmt.Println(\"small\")\n}", "big\n"},
		{"switch with a statement", "switch x := 2; x {\ncase 1, 2:\n\tfmt.Println(\"low\")\n\tfallthrough\ncase 3:\n\tfmt.Println(\"then\")\n}", "low\nthen\n"},
		{"switch with a statement and no tag", "switch x := 2; {\ncase x > 1:\n\tfmt.Println(\"yes\")\n}", "yes\n"},
		{"type switch", "var a any = 2.5\nswitch a.(type) {\ncase int:\n\tfmt.Println(\"int\")\ncase float64:\n\tfmt.Println(\"float64\")\n}", "float64\n"},
		{"type switch binding", "var a any = 2.5\nswitch v := a.(type) {\ncase int:\n\tfmt.Println(\"int\", v)\ncase float64:\n\tfmt.Println(\"float64\", v)\n}", "float64 2.5\n"},
		{"select", "ch := make(chan int, 1)\nch <- 7\nselect {\ncase v := <-ch:\n\tfmt.Println(v)\ndefault:\n\tfmt.Println(\"none\")\n}", "7\n"},
		{"select with ok and send", "ch := make(chan int, 1)\nselect {\ncase ch <- 1:\n\tfmt.Println(\"sent\")\n}\nselect {\ncase v, ok := <-ch:\n\tfmt.Println(v, ok)\n}", "sent\n1 true\n"},
		{"labeled break and continue", "n := 0\nouter:\nfor i := 0; i < 3; i++ {\n\tfor j := 0; j < 3; j++ {\n\t\tif j == 1 {\n\t\t\tcontinue outer\n\t\t}\n\t\tif i == 2 {\n\t\t\tbreak outer\n\t\t}\n\t\tn++\n\t}\n}\nn", "=> 2\n"},
		{"goto", "i := 0\nloop:\nif i < 3 {\n\ti++\n\tgoto loop\n}\ni", "=> 3\n"},
		{"comma-ok map index", "m := map[string]int{\"a\": 1}\nv, ok := m[\"a\"]\nfmt.Println(v, ok)", "1 true\n"},
		{"comma-ok type assertion", "var a any = \"s\"\nv, ok := a.(string)\nfmt.Println(v, ok)", "s true\n"},
		{"comma-ok receive", "ch := make(chan int, 1)\nch <- 4\nv, ok := <-ch\nfmt.Println(v, ok)", "4 true\n"},
		{"comma-ok with blank", "m := map[string]int{}\n_, ok := m[\"a\"]\nok", "=> false\n"},
		{"var with a comma-ok", "var a any = 3\nvar v, ok = a.(int)\nfmt.Println(v, ok)", "3 true\n"},
		{"block", "x := 1\n{\n\tx := 2\n\t_ = x\n}\nx", "=> 1\n"},
		{"declarations in a block", "{\n\tconst k = 3\n\ttype pair struct{ a, b int }\n\tvar p = pair{k, 4}\n\tfmt.Println(p.a + p.b)\n}", "7\n"},
		{"increment and op-assign", "x := 1\nx++\nx *= 5\nx", "=> 10\n"},
		{"parallel assignment", "a, b := 1, 2\na, b = b, a\nfmt.Println(a, b)", "2 1\n"},
		{"go statement", "done := make(chan bool)\ngo func() { done <- true }()\n<-done", "=> true\n"},
		{"defer is refused with what to write", "defer fmt.Println(1)", "!CompileError: 1:1: defer at the top level of a cell is not supported (it would run again after every later cell); defer inside a function\n"},
		{"return is refused with what to write", "x := 1\nif x > 0 {\n\treturn\n}", "!CompileError: 3:2: return at the top level of a cell: a cell is not a function, so there is nothing to return from; put the rest in an if/else, or the statements in a function and call it\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := runCells(t, newTestSession(t), tt.cell)[0]
			if got != tt.want {
				t.Errorf("%s\n got %q\nwant %q", tt.cell, got, tt.want)
			}
		})
	}
}
