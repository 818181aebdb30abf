package rdma

import (
	"fmt"
	"regexp"
	"strings"
)

// SourceLines is the number of lines of rdma_write.c, counted from the
// embedded source, so a text quoting the program's size cannot drift.
func SourceLines() int {
	return strings.Count(strings.TrimRight(string(Program.Source), "\n"), "\n") + 1
}

// Listing returns one piece of rdma_write.c as it stands in the embedded
// source: the function, struct or enum called name ("setup",
// "connect_qp", "conn_info"), with the comment right above it. A chapter
// quotes the program through it, so its listing is always the code that
// runs. An unknown name is an error listing the names there are.
func Listing(name string) (string, error) {
	lines := strings.Split(string(Program.Source), "\n")
	def := regexp.MustCompile(`^(?:static\s+)?(?:struct|enum|[A-Za-z_][A-Za-z0-9_ *]*?)\s*\b` + regexp.QuoteMeta(name) + `\b\s*(?:\(|\{)`)
	for i, l := range lines {
		if !def.MatchString(l) || strings.HasSuffix(strings.TrimSpace(l), ";") {
			continue
		}
		start := i
		// The comment block right above the definition belongs to it.
		for start > 0 {
			prev := strings.TrimSpace(lines[start-1])
			if strings.HasPrefix(prev, "/*") || strings.HasPrefix(prev, "*") || strings.HasSuffix(prev, "*/") {
				start--
				continue
			}
			break
		}
		end := i
		for end < len(lines) && !strings.HasPrefix(lines[end], "}") {
			end++
		}
		if end == len(lines) {
			return "", fmt.Errorf("rdma: %s in rdma_write.c has no closing brace at the start of a line", name)
		}
		return strings.Join(lines[start:end+1], "\n"), nil
	}
	return "", fmt.Errorf("rdma: no %q in rdma_write.c (it defines: %s)", name, strings.Join(Definitions(), ", "))
}

// Definitions lists the functions and types rdma_write.c defines at its
// top level, in source order: the names Listing takes.
func Definitions() []string {
	re := regexp.MustCompile(`^(?:static\s+[A-Za-z_][A-Za-z0-9_ *]*?\b([a-z_][a-z0-9_]*)\s*\(|struct ([a-z_][a-z0-9_]*)\s*\{|int (main)\()`)
	var names []string
	for _, l := range strings.Split(string(Program.Source), "\n") {
		if strings.HasSuffix(strings.TrimSpace(l), ";") {
			continue
		}
		if m := re.FindStringSubmatch(l); m != nil {
			for _, n := range m[1:] {
				if n != "" {
					names = append(names, n)
				}
			}
		}
	}
	return names
}

// ListingBlanked is Listing(name) with the braces of the designated
// initializer field (".wr.rdma" gives ".wr.rdma = { /* ??? */ }") emptied:
// a step of the program left for a learner to write. A field that is not in
// the listing is an error, so a renamed field never shows the answer.
func ListingBlanked(name, field string) (string, error) {
	code, err := Listing(name)
	if err != nil {
		return "", err
	}
	init := regexp.MustCompile(regexp.QuoteMeta(field) + `\s*=\s*\{[^}]*\}`)
	if !init.MatchString(code) {
		return "", fmt.Errorf("rdma: no %s = { ... } in %s", field, name)
	}
	return init.ReplaceAllLiteralString(code, field+" = { /* ??? */ }"), nil
}
