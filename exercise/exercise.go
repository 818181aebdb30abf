package exercise

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/commlab/commlab/units"
)

// Status is a check's verdict.
type Status int

const (
	// NotAnswered: the answer cell is still blank (NaN, 0 or "").
	NotAnswered Status = iota
	// Right: the answer matches the reference within the tolerance.
	Right
	// Wrong: the answer was given and does not match.
	Wrong
	// Broken: the exercise itself is malformed (its reference answer is
	// not a number, its tolerance is negative); the answer is not judged.
	Broken
	// Unchecked: the answer was given, but the reference is the
	// trainer's and not in this notebook (Withheld): a trainer's run or
	// nbgrader's autograde checks it.
	Unchecked
)

func (s Status) String() string {
	switch s {
	case NotAnswered:
		return "not answered yet"
	case Right:
		return "right"
	case Wrong:
		return "wrong"
	case Broken:
		return "cannot check"
	case Unchecked:
		return "checked when graded"
	}
	return "status(" + strconv.Itoa(int(s)) + ")"
}

// Check is the verdict on one answer. As a cell's result it renders as a
// box (HTML) or a line or two of text (String).
//
// What a learner sees never holds the reference answer: a wrong answer
// says what is wrong in kind (the direction and order of magnitude, a
// likely unit slip, a chapter's hint for that choice) and which section
// shows it. Want and Why are the trainer's: they show only in the
// trainer's view (COMMLAB_EXERCISE_VIEW=trainer), as on a grader's feedback page.
type Check struct {
	Name    string // the question, short: "ring all_reduce, 16 GPUs, 256 MB"
	Status  Status
	Got     string // the answer as shown, with its unit; "" when not answered
	Want    string // the reference answer, with its unit: the trainer's view only
	Accept  string // what counts as right: "within 1%", "exactly", "one of: a, b"
	Detail  string // wrong: what is wrong in kind, never the reference; broken: what is malformed
	Why     string // how the reference answer follows: the trainer's view only
	Section string // where the chapter shows what the answer needs ("Compute"), shown with a wrong answer

	// blankReference: the reference was a blank (0 or ""), which
	// Withheld reads as the trainer's reference held back; answer is
	// then the answer as shown ("" when blank).
	blankReference bool
	answer         string
	// outside: with a blank reference, the answer is not among the
	// options, which is wrong whatever the reference (Withheld says so).
	outside string
}

// See returns c pointing at the section of the chapter that shows what
// the answer needs; a wrong answer's verdict names it.
func (c Check) See(section string) Check {
	c.Section = strings.TrimSpace(section)
	return c
}

// Hint returns c with hint as what is wrong when the answer is answer (a
// Choice's option, compared as Choice compares): the chapter says why that
// option cannot be right ("PIX: GPU1 and NIC2 hang off different root
// ports") without naming the one that is. A hint for another answer, or
// for a right answer, changes nothing.
func (c Check) Hint(answer, hint string) Check {
	if c.Status == Wrong && normal(c.Got) == normal(answer) {
		c.Detail = strings.TrimSpace(hint)
	}
	return c
}

// Withheld returns c for an exercise whose reference the trainer holds
// back: the chapter ships the reference as a blank cell (NAME := 0.0 or
// "", see BlankAnswer) that only the trainer's solutions fill, in a
// trainer's run (`commlab run --solutions`) and in nbgrader's hidden tests.
// With the blank, a given answer is Unchecked ("checked when graded") and
// a blank answer not answered yet, instead of the exercise being
// malformed; a Choice's answer outside its options is wrong whatever the
// reference, and says so at once. With the trainer's reference, c checks
// as any other.
func (c Check) Withheld() Check {
	if c.Status != Broken || !c.blankReference {
		return c
	}
	c.Detail, c.Want, c.Why = "", "", ""
	switch {
	case c.answer == "":
		c.Status, c.Got = NotAnswered, ""
	case c.outside != "":
		c.Status, c.Got, c.Detail = Wrong, c.answer, c.outside
	default:
		c.Status, c.Got = Unchecked, c.answer
	}
	return c
}

// Passed reports whether the answer is right.
func (c Check) Passed() bool { return c.Status == Right }

// Answered reports whether the learner gave an answer the check judged.
func (c Check) Answered() bool { return c.Status == Right || c.Status == Wrong }

// Number checks a plain number: right when got is within tol of want,
// relative (0.01 is 1%). got NaN or 0 is a blank answer: not answered yet.
// So that a blank can never pass, a reference of 0 makes the exercise
// malformed: ask for a quantity that is not 0.
func Number(name string, got, want, tol float64, why string) Check {
	return Quantity(name, got, want, tol, "", why)
}

// Quantity is Number for a value in unit, any unit units.Readable prints
// ("s", "us", "B", "B/s", "GB/s", "x", "%"); values show at readable
// precision with their unit.
func Quantity(name string, got, want, tol float64, unit, why string) Check {
	c := Check{Name: name, Why: why}
	if math.IsNaN(want) || math.IsInf(want, 0) {
		return c.broken(fmt.Sprintf("its reference answer is %v, not a number", want))
	}
	if math.IsNaN(tol) || math.IsInf(tol, 0) || tol < 0 {
		return c.broken(fmt.Sprintf("its tolerance is %v; want 0 or more", tol))
	}
	if want == 0 {
		c = c.broken("its reference answer is 0, which a blank answer cell also holds; ask for a quantity that is not 0")
		c.blankReference = true
		if !math.IsNaN(got) && got != 0 {
			c.answer = format(got, unit)
		}
		return c
	}
	c.Want = format(want, unit)
	c.Accept = accept(tol)
	if math.IsNaN(got) || got == 0 {
		return c
	}
	c.Got = format(got, unit)
	if matches(got, want, tol) {
		c.Status = Right
		return c
	}
	c.Status = Wrong
	c.Got, c.Want = distinct(got, want, unit)
	c.Detail = off(got, want, tol)
	return c
}

// Duration checks a time in seconds.
func Duration(name string, got, want, tol float64, why string) Check {
	return Quantity(name, got, want, tol, "s", why)
}

// Bytes checks a size in bytes.
func Bytes(name string, got, want, tol float64, why string) Check {
	return Quantity(name, got, want, tol, "B", why)
}

// Rate checks a bandwidth in bytes per second (GB/s is 1e9 B/s).
func Rate(name string, got, want, tol float64, why string) Check {
	return Quantity(name, got, want, tol, "B/s", why)
}

// Choice checks a word among options, ignoring case and extra spaces:
// "Latency " is "latency". An empty got is a blank answer. With options,
// an answer outside them is wrong and the box lists them; with none, any
// word is compared with want.
func Choice(name, got, want string, options []string, why string) Check {
	c := Check{Name: name, Why: why, Want: strings.TrimSpace(want)}
	w := normal(want)
	if w == "" {
		c = c.broken("its reference answer is empty")
		c.blankReference = true
		c.answer = strings.TrimSpace(got)
		if len(options) > 0 {
			c.Accept = "one of: " + strings.Join(options, ", ")
			if g := normal(got); g != "" && !among(g, options) {
				c.outside = notAnOption(c.answer, options)
			}
		}
		return c
	}
	if len(options) > 0 {
		if !among(w, options) {
			return c.broken(fmt.Sprintf("its reference answer %q is not among its options (%s)", c.Want, strings.Join(options, ", ")))
		}
		c.Accept = "one of: " + strings.Join(options, ", ")
	}
	g := normal(got)
	if g == "" {
		return c
	}
	c.Got = strings.TrimSpace(got)
	if g == w {
		c.Status = Right
		return c
	}
	c.Status = Wrong
	c.Detail = "not this one: what the section shows points elsewhere"
	if len(options) > 0 && !among(g, options) {
		c.Detail = notAnOption(c.Got, options)
	}
	return c
}

func notAnOption(answer string, options []string) string {
	return fmt.Sprintf("%q is not one of the options (%s)", answer, strings.Join(options, ", "))
}

func (c Check) broken(why string) Check {
	c.Status, c.Detail, c.Got, c.Want = Broken, "the exercise is malformed: "+why, "", ""
	return c
}

func normal(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }

func among(w string, options []string) bool {
	for _, o := range options {
		if normal(o) == w {
			return true
		}
	}
	return false
}

// matches allows a relative rounding slack so that tol 0 accepts the same
// float computed two ways.
func matches(got, want, tol float64) bool {
	return math.Abs(got-want) <= (tol+1e-12)*math.Abs(want)
}

func format(v float64, unit string) string { return units.Readable(v, unit) }

func accept(tol float64) string {
	if tol == 0 {
		return "exactly"
	}
	return "within " + units.Readable(tol, "%")
}

// distinct formats got and want so that they read differently: a wrong
// answer within the readable precision of the reference gets more digits.
func distinct(got, want float64, unit string) (string, string) {
	g, w := format(got, unit), format(want, unit)
	for prec := 6; g == w && prec <= 17; prec++ {
		g, w = precise(got, unit, prec), precise(want, unit, prec)
	}
	return g, w
}

func precise(v float64, unit string, prec int) string {
	s := strconv.FormatFloat(v, 'g', prec, 64)
	switch unit {
	case "":
		return s
	case "%":
		return strconv.FormatFloat(v*100, 'g', prec, 64) + "%"
	case "x":
		return s + "x"
	}
	return s + " " + unit
}

// slips are factors a reader's answer is often off by, said as the kind
// of slip that usually causes them (never as the factor, which with the
// answer would give the reference away).
var slips = []struct {
	factor float64
	hint   string
}{
	{2, "one direction against both, or a term counted once instead of twice?"},
	{8, "bits against bytes (Gb/s against GB/s)?"},
	{1e3, "one unit prefix off (ms against µs, MB against KB)?"},
	{1e6, "two unit prefixes off (s against µs, MB against B)?"},
	{1e9, "seconds against nanoseconds, or bytes against GB?"},
	{1.024, "binary against decimal prefixes (KiB against KB)?"},
	{1.048576, "binary against decimal prefixes (MiB against MB)?"},
	{1.073741824, "binary against decimal prefixes (GiB against GB)?"},
}

// off says what is wrong with got in kind: its sign, its direction and
// order of magnitude, and a likely slip. It never says by how much in a
// way that gives want back (no difference, no exact ratio).
func off(got, want, tol float64) string {
	if math.IsInf(got, 0) {
		return "the answer is not a finite number"
	}
	r := got / want
	if r < 0 {
		return "the sign is wrong"
	}
	dir, ratio := "too high", r
	if r < 1 {
		dir, ratio = "too low", 1/r
	}
	var s string
	switch mag := math.Floor(math.Log10(ratio)); {
	case mag >= 2:
		s = fmt.Sprintf("%s by %d orders of magnitude or so", dir, int(mag))
	case mag >= 1:
		s = dir + " by an order of magnitude or more"
	case ratio >= 2:
		s = dir + " by a few times"
	case ratio >= 1.1:
		s = dir + ", by less than a factor of 2"
	default:
		s = "close, but " + dir + " (under 10% off): a constant, a rounding or a term"
	}
	if h := slip(r, tol); h != "" {
		s += "; " + h
	}
	return s
}

// slip names the slip whose factor (or its inverse) is nearest r, if one
// lies within the tolerance (at least 0.2%).
func slip(r, tol float64) string {
	best, hint := math.Max(tol, 0.002), ""
	for _, sl := range slips {
		for _, f := range []float64{sl.factor, 1 / sl.factor} {
			if d := math.Abs(r/f - 1); d <= best {
				best, hint = d, sl.hint
			}
		}
	}
	return hint
}
