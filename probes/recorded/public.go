package recorded

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"
)

// ErrNoPublic says no public output has the name asked for.
var ErrNoPublic = errors.New("recorded: no such public output")

// publicDir holds the public outputs and their README (data/public/).
const publicDir = "data/public"

// PublicOutput is a tool output people posted publicly, with the address
// it was copied from.
type PublicOutput struct {
	Name   string
	Source string
	Text   string
}

// PublicList names the public outputs (data/public/*, README.md left out),
// sorted.
func PublicList() []string {
	return entryNames(data, publicDir, func(e fs.DirEntry) (string, bool) {
		return e.Name(), !e.IsDir() && e.Name() != "README.md"
	})
}

// Public returns the public output called name with the source its
// README row gives: the runs here come from our machines, these from
// threads where people posted what their tools printed.
func Public(name string) (PublicOutput, error) {
	name = path.Base(strings.TrimSpace(name))
	b, err := data.ReadFile(publicDir + "/" + name)
	if err != nil || name == "README.md" {
		return PublicOutput{}, fmt.Errorf("%w: %q (have %s)", ErrNoPublic, name, strings.Join(PublicList(), ", "))
	}
	sources, err := publicSources()
	if err != nil {
		return PublicOutput{}, err
	}
	src, ok := sources[name]
	if !ok {
		return PublicOutput{}, fmt.Errorf("recorded: public output %s has no source row in its README", name)
	}
	return PublicOutput{Name: name, Source: src, Text: string(b)}, nil
}

// publicSources reads the README's table: file name in the first column,
// its address in the second.
func publicSources() (map[string]string, error) {
	b, err := data.ReadFile(publicDir + "/README.md")
	if err != nil {
		return nil, fmt.Errorf("recorded: public outputs: %w", err)
	}
	out := map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		cells := strings.Split(strings.Trim(strings.TrimSpace(line), "|"), "|")
		if len(cells) < 2 {
			continue
		}
		file, src := strings.Trim(strings.TrimSpace(cells[0]), "`"), strings.TrimSpace(cells[1])
		if strings.HasPrefix(src, "http") {
			out[file] = src
		}
	}
	return out, nil
}

// Table returns the rows of the markdown table in a public output that is
// one (a summary people posted as a table rather than a tool's own text):
// every line that starts with "|", split at "|", cells trimmed, the
// separator row ("| --- |") left out. The header is the first row. Lines
// outside the table (a command line above it) are skipped.
func (p PublicOutput) Table() ([][]string, error) {
	var rows [][]string
	for _, line := range strings.Split(p.Text, "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "|") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		separator := true
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
			separator = separator && strings.Trim(cells[i], ":-") == "" && cells[i] != ""
		}
		if separator {
			continue
		}
		if len(rows) > 0 && len(cells) != len(rows[0]) {
			return rows, fmt.Errorf("recorded: %s: a row of %d cells under a header of %d: %q", p.Name, len(cells), len(rows[0]), line)
		}
		rows = append(rows, cells)
	}
	if len(rows) < 2 {
		return nil, fmt.Errorf("recorded: %s holds no markdown table", p.Name)
	}
	return rows, nil
}
