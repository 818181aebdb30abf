// Package launcher removes what job launchers and log collectors put in
// front of every line of a tool's output, so the parsers under
// parse read the tool's own text: Open MPI's --tag-output
// ("[1,0]<stdout>:") and --timestamp-output, Slurm srun's --label ("0: ",
// padded " 3: "), torchrun's per-rank prefix ("[default0]:") and
// PyTorch's "[rank0]:", kubectl logs --prefix ("[pod/name/container] "),
// an ISO 8601 timestamp (kubectl --timestamps, journald exports), a log
// console's "  | 2024-11-28T07:42:11.525Z | " (CloudWatch Logs copied as
// text) and pdsh's "host: " label.
//
// Strip removes the prefixes no tool's own line can start with. pdsh's
// label looks like a "key: value" line (ibstat prints "State: Active"),
// so only the whole input tells them apart: Detect finds the labels that
// start nearly every line, and its Stripper removes those too.
//
// It owns no format and knows no tool; it is internal to parse.
package launcher

import (
	"maps"
	"regexp"
	"slices"
	"strings"
)

// unambiguous are the prefixes Strip removes, tried in turn at the start
// of the line; they stack ("[1,0]<stdout>:0: ").
var unambiguous = []*regexp.Regexp{
	// Open MPI --tag-output: [jobid,rank]<stdout>: (also <stderr>, <stddiag>).
	regexp.MustCompile(`^\[\d+,\d+\]<\w+>:`),
	// Open MPI --timestamp-output: "Mon Jan  2 15:04:05 2006<stdout>:".
	regexp.MustCompile(`^[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \d{4}<\w+>:`),
	// torchrun (--tee, log_line_prefix_template) and PyTorch's rank tag.
	regexp.MustCompile(`^\[(?:default|rank)\d+\]:`),
	// kubectl logs --prefix.
	regexp.MustCompile(`^\[pod/[^\]\s]+\] `),
	// srun --label: the task number, right-aligned, then ": ".
	regexp.MustCompile(`^ {0,6}\d{1,6}:(?: |$)`),
	// An ISO 8601 timestamp and its separating blank.
	regexp.MustCompile(`^\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?\s`),
	// A log console's table copied as text (CloudWatch Logs, SageMaker):
	// "  | 2024-11-28T07:42:11.525Z | " before the message.
	regexp.MustCompile(`^ *\| \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)? \| `),
}

// Strip removes the launcher prefixes at the start of line and returns
// the rest and the prefixes it removed ("" when none).
func Strip(line string) (rest, prefix string) {
	rest = line
	for range 4 {
		n := matchUnambiguous(rest)
		if n == 0 {
			break
		}
		rest = rest[n:]
	}
	return rest, line[:len(line)-len(rest)]
}

func matchUnambiguous(s string) int {
	if s == "" {
		return 0
	}
	// Every prefix starts with "[", a digit, a blank, "|" or a capital letter:
	// a cheap test spares the regexps on most lines.
	switch c := s[0]; {
	case c == '[', c == ' ', c == '|', c >= '0' && c <= '9', c >= 'A' && c <= 'Z':
	default:
		return 0
	}
	for _, re := range unambiguous {
		if loc := re.FindStringIndex(s); loc != nil && loc[1] > 0 {
			return loc[1]
		}
	}
	return 0
}

// reHostLabel is pdsh's "host: " (and clush's), a hostname then ": ".
var reHostLabel = regexp.MustCompile(`^([A-Za-z0-9][A-Za-z0-9._-]{0,62}): `)

// Stripper removes the unambiguous prefixes and, when Detect found them,
// the host labels of the input it was built from.
type Stripper struct {
	hosts map[string]bool
}

// Detect reads the lines of a whole input and returns the Stripper for
// it. Host labels count only when labels (each on two lines or more)
// start at least 90% of the non-blank lines: a tool's "key: value" lines
// never come that close, a pdsh output always does.
func Detect(lines []string) *Stripper {
	counts := map[string]int{}
	nonBlank := 0
	for _, l := range lines {
		rest, _ := Strip(l)
		if strings.TrimSpace(rest) == "" {
			continue
		}
		nonBlank++
		if m := reHostLabel.FindStringSubmatch(rest); m != nil {
			counts[m[1]]++
		}
	}
	labelled := 0
	hosts := map[string]bool{}
	for h, n := range counts {
		if n >= 2 {
			hosts[h] = true
			labelled += n
		}
	}
	if nonBlank < 2 || labelled*10 < nonBlank*9 || len(hosts)*2 > labelled {
		return &Stripper{}
	}
	return &Stripper{hosts: hosts}
}

// Hosts returns the host labels Detect found, sorted.
func (s *Stripper) Hosts() []string {
	if s == nil {
		return nil
	}
	return slices.Sorted(maps.Keys(s.hosts))
}

// Strip removes line's launcher prefixes and host label; prefix is what
// it removed.
func (s *Stripper) Strip(line string) (rest, prefix string) {
	rest, _ = Strip(line)
	if s != nil && len(s.hosts) > 0 {
		if m := reHostLabel.FindStringSubmatch(rest); m != nil && s.hosts[m[1]] {
			rest, _ = Strip(rest[len(m[0]):])
		}
	}
	return rest, line[:len(line)-len(rest)]
}

// Clean returns data with each line's launcher prefixes and host labels
// removed, line for line (a parser's line numbers still name the input's
// lines), and the Stripper that found the labels.
func Clean(data []byte) ([]byte, *Stripper) {
	lines := strings.Split(string(data), "\n")
	s := Detect(lines)
	changed := false
	for i, l := range lines {
		if rest, prefix := s.Strip(l); prefix != "" {
			lines[i], changed = rest, true
		}
	}
	if !changed {
		return data, s
	}
	return []byte(strings.Join(lines, "\n")), s
}
