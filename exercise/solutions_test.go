package exercise

import (
	"errors"
	"strings"
	"testing"
)

func TestBlankAnswer(t *testing.T) {
	tests := []struct {
		cell string
		name string
		ok   bool
	}{
		{"answer1 := 0.0 // your expression, in seconds", "answer1", true},
		{"\n  answer2 := \"\" // your answer: PIX or SYS\n\n", "answer2", true},
		{"answerRank := 0 // the rank", "answerRank", true},
		{"answer := 0.0", "answer", true},
		{"answer1 := 0.0 //", "answer1", true},
		{"answer1 := 0.5 // your expression, in seconds", "", false},            // answered
		{"answer1 := 0.0 + 1 // your expression", "", false},                    // answered
		{"answer1 := 0.0 // your expression\nanswer1 = 3", "", false},           // a second line
		{"answer1 = 0.0 // assignment, not the shipped declaration", "", false}, // not :=
		{"answer1 := 0.00 // not the shipped zero", "", false},
		{"answer1 := nil", "", false},
		{"// answer1 := 0.0", "", false},
		{"", "", false},
	}
	for _, tt := range tests {
		name, ok := BlankAnswer(tt.cell)
		if name != tt.name || ok != tt.ok {
			t.Errorf("BlankAnswer(%q) = %q, %v; want %q, %v", tt.cell, name, ok, tt.name, tt.ok)
		}
	}
}

const goodSolutions = "# Solutions: 1. Collectives\n\nFor trainers.\n\n```go\nexample := 1 // prose before the first entry\n```\n\n" +
	"## answer1\n\nThirty steps.\n\n```go\nanswer1 := 2 * 15 * 5e-6\n```\n\n" +
	"## `answer2`\n\n```go\nc, _ := 64, 8\nanswer2 = float64(c)\n```\n\n" +
	"## answer3\n\n```go\nvar answer3 = \"SYS\"\n```\n"

func TestParseSolutions(t *testing.T) {
	s, err := ParseSolutions([]byte(goodSolutions))
	if err != nil {
		t.Fatal(err)
	}
	if s.Title != "Solutions: 1. Collectives" {
		t.Errorf("title %q", s.Title)
	}
	if got := strings.Join(s.Names(), ","); got != "answer1,answer2,answer3" {
		t.Fatalf("names %s", got)
	}
	if s.List[0].Code != "answer1 := 2 * 15 * 5e-6" || s.List[0].Line != 14 {
		t.Errorf("answer1: %+v", s.List[0])
	}
	if s.List[1].Code != "c, _ := 64, 8\nanswer2 = float64(c)" {
		t.Errorf("answer2: %q", s.List[1].Code)
	}
}

func TestParseSolutionsErrors(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"empty", "", "no solutions"},
		{"prose only", "# Solutions\n\nnothing yet\n", "no solutions"},
		{"no code", "## answer1\n\ntext only\n", "answer1 has no ```go code block"},
		{"no code before the next", "## answer1\n\n## answer2\n```go\nanswer2 := 1\n```\n", "answer1 has no"},
		{"two blocks", "## a\n```go\na := 1\n```\n```go\na := 2\n```\n", "a second code block"},
		{"other language", "## a\n```python\na = 1\n```\n", `is "python", want`},
		{"duplicate", "## a\n```go\na := 1\n```\n## a\n```go\na := 2\n```\n", "a again (first at line 1)"},
		{"bad name", "## the first answer\n```go\nx := 1\n```\n", "not an answer variable's name"},
		{"unclosed", "## a\n```go\na := 1\n", "not closed"},
		{"empty code", "## a\n```go\n\n```\n", "code of a is empty"},
		{"not Go", "## a\n```go\na := := 1\n```\n", "a (line 3)"},
		{"does not set it", "## a\n```go\nb := 1\n```\n", "never sets a"},
		{"sets it only inside a block", "## a\n```go\nif true {\n\ta := 1\n\t_ = a\n}\n```\n", "never sets a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := ParseSolutions([]byte(tt.src))
			if err == nil {
				t.Fatalf("no error; got %+v", s)
			}
			if !errors.Is(err, ErrSolutions) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q; want ErrSolutions containing %q", err, tt.want)
			}
		})
	}
}

func TestSolutionsForAndMatch(t *testing.T) {
	s, err := ParseSolutions([]byte(goodSolutions))
	if err != nil {
		t.Fatal(err)
	}
	if sol, ok := s.For("answer1 := 0.0 // your expression, in seconds\n"); !ok || sol.Name != "answer1" {
		t.Errorf("For blank answer1: %+v, %v", sol, ok)
	}
	if _, ok := s.For("answer1 := 0.0015 // a learner's own answer"); ok {
		t.Error("a learner's answer was taken for a blank")
	}
	if _, ok := s.For("other := 0.0 // a blank with no solution"); ok {
		t.Error("a blank without a solution matched")
	}
	var none *Solutions
	if _, ok := none.For("answer1 := 0.0"); ok || none.Names() != nil {
		t.Error("nil solutions matched")
	}

	cells := []string{"import \"fmt\"", "answer1 := 0.0 // s", "answer2 := 0.0 // n", "fmt.Println(answer1)", "answer3 := \"\" // word"}
	if err := s.Match(cells); err != nil {
		t.Errorf("Match: %v", err)
	}
	err = s.Match([]string{"answer1 := 0.0", "answer4 := 0.0 // a new exercise", "answer5 := \"\""})
	if err == nil || !errors.Is(err, ErrSolutions) {
		t.Fatalf("Match with a missing and unknown solutions: %v", err)
	}
	for _, want := range []string{"no solution for the blank answer cell(s) answer4, answer5", "solution(s) for answer2, answer3 but no blank answer cell sets them"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}

// FuzzParseSolutions holds that no input makes the parser panic, and that
// what it accepts names each variable once and sets it in its code.
func FuzzParseSolutions(f *testing.F) {
	f.Add([]byte(goodSolutions))
	f.Add([]byte("## a\n```go\na := 1\n```\n"))
	f.Add([]byte("## a\n```go\n"))
	f.Add([]byte("```\n## a\n```\n"))
	f.Add([]byte("\n  answer2 := \"\" // a blank\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		// A blank is one line setting one name.
		if name, ok := BlankAnswer(string(src)); ok && (name == "" || strings.ContainsAny(strings.TrimSpace(string(src)), "\n\r")) {
			t.Fatalf("BlankAnswer(%q) = %q", src, name)
		}
		s, err := ParseSolutions(src)
		if err != nil {
			if !errors.Is(err, ErrSolutions) {
				t.Fatalf("error does not wrap ErrSolutions: %v", err)
			}
			return
		}
		seen := map[string]bool{}
		for _, sol := range s.List {
			if seen[sol.Name] || strings.TrimSpace(sol.Code) == "" {
				t.Fatalf("accepted %+v", s.List)
			}
			seen[sol.Name] = true
		}
	})
}

func TestVerdictsForRunners(t *testing.T) {
	b := Checks{Number("a", 1, 1, 0, ""), Number("b", 0, 1, 0, "")}.MIMEBundle()
	v, ok := b[MIMEType].(map[string]any)["checks"].([]Verdict)
	if !ok || len(v) != 2 || v[0] != (Verdict{Name: "a", Status: "right"}) || v[1] != (Verdict{Name: "b", Status: "not answered yet"}) {
		t.Errorf("verdicts %#v", b[MIMEType])
	}
	if _, ok := b["text/html"].(string); !ok {
		t.Error("no HTML")
	}
	one := Choice("c", "x", "y", nil, "").See("Compute").MIMEBundle()[MIMEType].(map[string]any)["checks"].([]Verdict)
	if len(one) != 1 || one[0] != (Verdict{Name: "c", Status: "wrong", Section: "Compute"}) {
		t.Errorf("one check: %#v", one)
	}
}

func TestIsCheck(t *testing.T) {
	for _, tc := range []struct {
		cell string
		want bool
	}{
		{`exercise.Number("n", answer1, 2, 0, "two")`, true},
		{"exercise.Checks{\n\texercise.Choice(\"a\", answer2, \"x\", nil, \"\"),\n}", true},
		{`want := 3.0` + "\n" + `exercise.Duration("t", answer3, want, 0.01, "")`, true},
		{`answer1 := 0.0 // your expression`, false},
		{`fmt.Println(exercise.Right)`, false},
		{`// exercise.Number( in a comment is still a call to fold`, true},
	} {
		if got := IsCheck(tc.cell); got != tc.want {
			t.Errorf("IsCheck(%q) = %v, want %v", tc.cell, got, tc.want)
		}
	}
}
