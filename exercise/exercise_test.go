package exercise

import (
	"fmt"
	"math"
	"regexp"
	"strings"
	"testing"
)

func TestQuantity(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	tests := []struct {
		name           string
		got, want, tol float64
		unit           string
		status         Status
		detail         string // in Detail
		gotText        string // Got, when not ""
	}{
		{name: "exact", got: 1, want: 1, tol: 0, status: Right},
		{name: "within tolerance", got: 1.009, want: 1, tol: 0.01, status: Right},
		{name: "just outside", got: 1.011, want: 1, tol: 0.01, status: Wrong, detail: "close, but too high (under 10% off)"},
		{name: "low", got: 0.9, want: 1, tol: 0.01, status: Wrong, detail: "too low, by less than a factor of 2"},
		{name: "negative reference", got: -1.005, want: -1, tol: 0.01, status: Right},
		{name: "sign", got: 1, want: -1, tol: 0.01, status: Wrong, detail: "the sign is wrong"},
		{name: "NaN is blank", got: nan, want: 1, tol: 0.01, status: NotAnswered},
		{name: "0 is blank", got: 0, want: 1, tol: 0.01, status: NotAnswered},
		{name: "a 0 reference cannot be told from a blank", got: 0, want: 0, tol: 0, status: Broken, detail: "reference answer is 0"},
		{name: "a 0 reference is malformed whatever the answer", got: 0.5, want: 0, tol: 0.005, status: Broken, detail: "reference answer is 0"},
		{name: "infinite answer", got: inf, want: 1, tol: 0.01, status: Wrong, detail: "not a finite number"},
		{name: "NaN reference", got: 1, want: nan, tol: 0.01, status: Broken, detail: "malformed: its reference answer is NaN"},
		{name: "infinite reference", got: 1, want: -inf, tol: 0.01, status: Broken, detail: "reference answer is -Inf"},
		{name: "negative tolerance", got: 1, want: 1, tol: -0.1, status: Broken, detail: "tolerance is -0.1"},
		{name: "NaN tolerance", got: 1, want: 1, tol: nan, status: Broken, detail: "tolerance is NaN"},
		{name: "prefix slip", got: 70e-3, want: 70e-6, tol: 0.01, unit: "s", status: Wrong, detail: "too high by 3 orders of magnitude or so; one unit prefix off"},
		{name: "both ways", got: 900e9, want: 450e9, tol: 0.01, unit: "B/s", status: Wrong, detail: "too high by a few times; one direction against both"},
		{name: "bits for bytes", got: 400e9, want: 50e9, tol: 0.01, unit: "B/s", status: Wrong, detail: "too high by a few times; bits against bytes"},
		{name: "an order of magnitude", got: 12, want: 1, tol: 0.01, status: Wrong, detail: "too high by an order of magnitude or more"},
		{name: "orders of magnitude low", got: 1e-5, want: 1, tol: 0.01, status: Wrong, detail: "too low by 5 orders of magnitude or so"},
		{name: "MiB for MB", got: 1 << 20, want: 1e6, tol: 0.01, unit: "B", status: Wrong, detail: "binary against decimal prefixes (MiB against MB)"},
		{name: "no slip named", got: 3, want: 1, tol: 0.01, status: Wrong, detail: "too high by a few times"},
		{name: "more digits when readable forms agree", got: 1.0002, want: 1, tol: 0.0001, unit: "s", status: Wrong, gotText: "1.0002 s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Quantity("q", tt.got, tt.want, tt.tol, tt.unit, "because")
			if c.Status != tt.status {
				t.Fatalf("status %v, want %v: %+v", c.Status, tt.status, c)
			}
			if !strings.Contains(c.Detail, tt.detail) {
				t.Errorf("detail %q lacks %q", c.Detail, tt.detail)
			}
			if tt.gotText != "" && c.Got != tt.gotText {
				t.Errorf("got shown as %q, want %q", c.Got, tt.gotText)
			}
			if c.Status == Wrong && c.Got == c.Want {
				t.Errorf("a wrong answer reads as the reference: %q", c.Got)
			}
			if tt.detail == "" && c.Status != Wrong && c.Detail != "" {
				t.Errorf("unexpected detail %q", c.Detail)
			}
		})
	}
}

func TestChoice(t *testing.T) {
	opts := []string{"Ring", "Tree", "NVLS"}
	tests := []struct {
		name, got, want string
		options         []string
		status          Status
		detail          string
	}{
		{name: "same", got: "Ring", want: "ring", options: opts, status: Right},
		{name: "case and spaces", got: "  nvls ", want: "NVLS", options: opts, status: Right},
		{name: "inner spaces", got: "double  binary tree", want: "double binary tree", status: Right},
		{name: "another option", got: "tree", want: "ring", options: opts, status: Wrong, detail: "not this one"},
		{name: "not an option", got: "CollNet", want: "ring", options: opts, status: Wrong, detail: `"CollNet" is not one of the options (Ring, Tree, NVLS)`},
		{name: "blank", got: " ", want: "ring", options: opts, status: NotAnswered},
		{name: "no options", got: "PAT", want: "ring", status: Wrong},
		{name: "empty reference", got: "ring", want: "", options: opts, status: Broken, detail: "reference answer is empty"},
		{name: "reference outside options", got: "ring", want: "LL128", options: opts, status: Broken, detail: `"LL128" is not among its options`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Choice("algorithm", tt.got, tt.want, tt.options, "why")
			if c.Status != tt.status {
				t.Fatalf("status %v, want %v: %+v", c.Status, tt.status, c)
			}
			if !strings.Contains(c.Detail, tt.detail) {
				t.Errorf("detail %q lacks %q", c.Detail, tt.detail)
			}
		})
	}
}

func TestRendering(t *testing.T) {
	tests := []struct {
		name    string
		check   Check
		html    []string // in HTML()
		notHTML []string
		text    string // String(), whole
	}{
		{
			name:    "right",
			check:   Duration("a <b> & c", 70e-6, 70e-6, 0.01, "why <i>"),
			html:    []string{"exercise-right", "#1a7f37", "✓ right</strong> · a &lt;b&gt; &amp; c", "<b>70 µs</b>"},
			notHTML: []string{"<b> &", "why"},
			text:    "✓ right: a <b> & c: 70 µs",
		},
		{
			name:    "wrong",
			check:   Duration("t", 35e-6, 70e-6, 0.01, "2(n-1) alpha\n+ 2(n-1)/n S/beta").See("Compute"),
			html:    []string{"exercise-wrong", "#cf222e", "got <b>35 µs</b>: too low by a few times; one direction against both", "(see <em>Compute</em>)"},
			notHTML: []string{"70 µs", "expected", "why", "alpha", "trainer"},
			text:    "✗ wrong: t: got 35 µs: too low by a few times; one direction against both, or a term counted once instead of twice? (see Compute)",
		},
		{
			name:    "wrong choice with a hint",
			check:   Choice("path", "PIX", "SYS", []string{"PIX", "SYS"}, "across sockets").Hint("pix", "PIX is one PCIe switch; these two sit on different sockets").Hint("SYS", "not shown"),
			html:    []string{"got <b>PIX</b>: PIX is one PCIe switch; these two sit on different sockets"},
			notHTML: []string{"SYS", "across sockets", "not shown"},
			text:    "✗ wrong: path: got PIX: PIX is one PCIe switch; these two sit on different sockets",
		},
		{
			name:    "not answered",
			check:   Number("n", math.NaN(), 3, 0, "the answer is 3"),
			html:    []string{"exercise-not-answered-yet", "… not answered yet</strong> · n", "complete the answer cell above"},
			notHTML: []string{"the answer is 3", ">3<"},
			text:    "… not answered yet: n: complete the answer cell above, then run this cell again",
		},
		{
			name:  "broken",
			check: Number("", 1, math.NaN(), 0, ""),
			html:  []string{"exercise-cannot-check", "the exercise is malformed"},
			text:  "! cannot check: the exercise is malformed: its reference answer is NaN, not a number",
		},
		{
			name:  "zero value",
			check: Check{},
			html:  []string{"not answered yet"},
			text:  "… not answered yet: complete the answer cell above, then run this cell again",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := tt.check.HTML()
			for _, want := range tt.html {
				if !strings.Contains(h, want) {
					t.Errorf("HTML lacks %q:\n%s", want, h)
				}
			}
			for _, not := range tt.notHTML {
				if strings.Contains(h, not) {
					t.Errorf("HTML has %q:\n%s", not, h)
				}
			}
			if got := tt.check.String(); got != tt.text {
				t.Errorf("String:\n got %q\nwant %q", got, tt.text)
			}
		})
	}
}

func TestChecks(t *testing.T) {
	cs := Checks{Number("a", 1, 1, 0, ""), Number("b", 2, 1, 0, ""), Number("c", 0, 1, 0, "")}
	if r, n := cs.Score(); r != 1 || n != 3 {
		t.Errorf("score %d of %d", r, n)
	}
	if h := cs.HTML(); !strings.Contains(h, "1 of 3 right") || strings.Count(h, "commlab-exercise ") != 3 {
		t.Errorf("HTML: %s", h)
	}
	if !cs[0].Passed() || cs[1].Passed() || !cs[1].Answered() || cs[2].Answered() {
		t.Errorf("Passed/Answered wrong: %+v", cs)
	}
	if s := (Checks{}).String(); s != "0 of 0 right" {
		t.Errorf("empty: %q", s)
	}
}

// FuzzQuantity holds that no input makes a check panic, leave its status
// unknown, or show a wrong answer as the reference.
func FuzzQuantity(f *testing.F) {
	for _, seed := range [][3]float64{{1, 1, 0.01}, {0, 0, 0}, {math.NaN(), 1, 0}, {1e308, -1e308, 1e-300}, {5e-324, 1e-323, 0}, {math.Inf(-1), 1, 2}} {
		f.Add(seed[0], seed[1], seed[2], "s")
	}
	f.Fuzz(func(t *testing.T, got, want, tol float64, unit string) {
		c := Quantity("q", got, want, tol, unit, "")
		if _, ok := looks[c.Status]; !ok {
			t.Fatalf("status %d", c.Status)
		}
		if c.Status == Wrong && c.Got == c.Want && !math.IsInf(got, 0) {
			t.Errorf("wrong answer %v reads as reference %v: %q", got, want, c.Got)
		}
		shown := c.HTML() + c.String()
		if c.Status == Wrong && !strings.Contains(c.Got, c.Want) && strings.Contains(shown, c.Want) {
			t.Errorf("a wrong answer's verdict shows the reference %q:\n%s", c.Want, shown)
		}
	})
}

// tags are HTML's tags, with their styles: what the box shows is between them.
var tags = regexp.MustCompile(`<[^>]*>`)

// TestNeverGivesTheAnswerAway holds that what a learner sees of a wrong
// answer (box, text, the runners' JSON) never holds the reference answer
// or its why, and that the trainer's view shows both.
func TestNeverGivesTheAnswerAway(t *testing.T) {
	checks := []Check{
		Duration("ring", 9.675e-3, 19.35e-3, 0.01, "30 steps of 5 us"),
		Rate("port", 400e9, 50e9, 0.01, "400 Gb/s is 50 GB/s"),
		Bytes("message", 128e3, 8*8192*2, 0, "8 x 8192 x 2 B"),
		Number("rank", 3, 5, 0, "rank 5 never entered"),
		Choice("path", "PIX", "SYS", []string{"PIX", "PXB", "PHB", "NODE", "SYS"}, "across the sockets"),
	}
	for _, c := range checks {
		c = c.See("Reading the matrix")
		t.Run(c.Name, func(t *testing.T) {
			if c.Status != Wrong {
				t.Fatalf("status %v", c.Status)
			}
			learner := tags.ReplaceAllString(c.HTML(), " ") + c.String() + fmt.Sprint(c.MIMEBundle()[MIMEType])
			for _, secret := range []string{c.Want, c.Why, "expected"} {
				if strings.Contains(learner, secret) {
					t.Errorf("the learner's view holds %q:\n%s", secret, learner)
				}
			}
			if !strings.Contains(learner, "Reading the matrix") {
				t.Errorf("the learner's view does not point at the section:\n%s", learner)
			}
			trainerView = true
			defer func() { trainerView = false }()
			trainer := c.HTML() + c.String() + fmt.Sprint(c.MIMEBundle()[MIMEType])
			for _, shown := range []string{"expected " + c.Want, c.Why} {
				if !strings.Contains(trainer, shown) {
					t.Errorf("the trainer's view lacks %q:\n%s", shown, trainer)
				}
			}
		})
	}
}

// TestGraderScores holds that in the grader's view a check cell's text is
// the share of its checks that are right (nbgrader's partial credit of a
// 1-point test cell), and that its box stays.
func TestGraderScores(t *testing.T) {
	trainerView, graderView = true, true
	defer func() { trainerView, graderView = false, false }()
	right, wrong, blank := Number("a", 1, 1, 0, ""), Number("b", 2, 1, 0, ""), Number("c", 0, 1, 0, "")
	for _, tc := range []struct {
		name   string
		bundle map[string]any
		score  string
	}{
		{"right", right.MIMEBundle(), "1"},
		{"wrong", wrong.MIMEBundle(), "0"},
		{"not answered", blank.MIMEBundle(), "0"},
		{"all right", Checks{right, right}.MIMEBundle(), "1"},
		{"one of two", Checks{right, wrong}.MIMEBundle(), "0.5"},
		{"one of three", Checks{right, wrong, blank}.MIMEBundle(), "0.3333"},
		{"none", Checks{}.MIMEBundle(), "0"},
	} {
		if text := tc.bundle["text/plain"].(string); text != tc.score {
			t.Errorf("%s: text %q, want %q", tc.name, text, tc.score)
		}
		if h := tc.bundle["text/html"].(string); !strings.Contains(h, "commlab-exercise") {
			t.Errorf("%s: the box is gone in the grader's view: %s", tc.name, h)
		}
	}
}

// TestWithheld holds that a check whose reference the trainer holds back
// says "checked when graded" for a given answer and "not answered yet"
// for a blank, never shows a reference, and checks as any other once the
// trainer's reference is there.
func TestWithheld(t *testing.T) {
	tests := []struct {
		name   string
		check  Check
		status Status
		got    string
	}{
		{"choice answered", Choice("path", "PHB", "", []string{"PIX", "PHB", "SYS"}, "why").Withheld(), Unchecked, "PHB"},
		{"choice blank", Choice("path", "", "", []string{"PIX", "PHB", "SYS"}, "why").Withheld(), NotAnswered, ""},
		{"choice outside the options", Choice("path", "NVL", "", []string{"PIX", "PHB", "SYS"}, "why").Withheld(), Wrong, "NVL"},
		{"choice without options", Choice("path", "NVL", "", nil, "why").Withheld(), Unchecked, "NVL"},
		{"number answered", Bytes("size", 4.8e6, 0, 0.01, "why").Withheld(), Unchecked, "4.8 MB"},
		{"number blank", Bytes("size", 0, 0, 0.01, "why").Withheld(), NotAnswered, ""},
		{"with the reference: right", Choice("path", "PHB", "PHB", []string{"PIX", "PHB", "SYS"}, "why").Withheld(), Right, "PHB"},
		{"with the reference: wrong", Bytes("size", 9.6e6, 4.8e6, 0.01, "why").Withheld(), Wrong, ""},
		{"malformed otherwise", Quantity("x", 1, math.NaN(), 0.01, "", "why").Withheld(), Broken, ""},
	}
	for _, tt := range tests {
		c := tt.check
		if c.Status != tt.status || tt.got != "" && c.Got != tt.got {
			t.Errorf("%s: %v, got %q; want %v, %q", tt.name, c.Status, c.Got, tt.status, tt.got)
		}
		if c.Status == Unchecked && (c.Want != "" || c.Why != "" || !strings.Contains(c.String(), "checked when it is graded")) {
			t.Errorf("%s: %+v\n%s", tt.name, c, c.String())
		}
	}
	if c := Choice("path", "NVL", "", []string{"PIX", "PHB"}, "why").Withheld(); c.Want != "" || c.Why != "" || !strings.Contains(c.String(), `"NVL" is not one of the options (PIX, PHB)`) {
		t.Errorf("an answer outside the options is wrong in kind, with no reference: %+v\n%s", c, c.String())
	}
	if s := Choice("path", "", "", []string{"PIX", "PHB"}, "").Withheld().String(); !strings.Contains(s, "answer one of: PIX, PHB") {
		t.Errorf("a blank answer lists the options: %s", s)
	}
	if h := Choice("path", "PHB", "", nil, "").See("Observe").Withheld().HTML(); !strings.Contains(h, "exercise-checked-when-graded") || !strings.Contains(h, "see Observe") {
		t.Errorf("box: %s", h)
	}
}
