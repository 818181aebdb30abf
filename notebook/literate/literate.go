package literate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"sort"
	"strings"

	"github.com/commlab/commlab/notebook"
	"go.yaml.in/yaml/v3"
)

// Sentinel errors; each returned error wraps one and names the line.
var (
	// ErrUnclosed: a code fence, region or raw block runs to the end of
	// the file. The cell is kept with what was read.
	ErrUnclosed = errors.New("literate: unclosed block")
	// ErrMetadata: a header or a cell's metadata could not be read.
	ErrMetadata = errors.New("literate: bad metadata")
	// ErrUnrepresentable: a cell holds text the markdown form cannot
	// carry (its own end marker).
	ErrUnrepresentable = errors.New("literate: cell cannot be written as markdown")
)

// Language is the language of the code cells.
const Language = "go"

// FormatVersion is the jupytext markdown format version written.
const FormatVersion = "1.3"

var textRepresentation = map[string]any{
	"extension":      ".md",
	"format_name":    "markdown",
	"format_version": FormatVersion,
}

const (
	regionEnd = "<!-- #endregion -->"
	rawEnd    = "<!-- #endraw -->"
)

var (
	regionStart = regexp.MustCompile(`^<!--\s*#(region|md|markdown)(\s.*)?-->\s*$`)
	rawStart    = regexp.MustCompile(`^<!--\s*#raw(\s.*)?-->\s*$`)
	anyEnd      = map[string]string{"region": regionEnd, "md": "<!-- #endmd -->", "markdown": "<!-- #endmarkdown -->"}
	// simpleKey is a key jupytext writes as key=value (cell_metadata.py's
	// _IS_VALID_METADATA_KEY); others go into one JSON object.
	simpleKey = regexp.MustCompile(`^[a-zA-Z0-9_.@/-]+$`)
	// bareKey is a key jupytext writes alone for a null value, and reads
	// alone as one (its _IS_IDENTIFIER).
	bareKey = regexp.MustCompile(`^[a-zA-Z_.]+[a-zA-Z0-9_.]*$`)
	// jupytextMarker is a line jupytext's markdown reader takes for a
	// region or raw marker (cell_reader.py's start and end patterns),
	// which plain prose must not hold.
	jupytextMarker = regexp.MustCompile(`^<!--\s*#(end)?(region|markdown|md|raw)(.*)-->\s*$`)
)

func blank(line string) bool { return strings.TrimSpace(line) == "" }

// fence returns the backtick or tilde run that opens a fenced block and the
// info string after it, or "" when line opens none.
func fence(line string) (marker, info string) {
	if len(line) < 3 || (line[0] != '`' && line[0] != '~') {
		return "", ""
	}
	n := 0
	for n < len(line) && line[n] == line[0] {
		n++
	}
	if n < 3 {
		return "", ""
	}
	return line[:n], line[n:]
}

// closes reports whether line closes a fence opened with marker.
func closes(line, marker string) bool {
	t := strings.TrimRight(line, " \t\r")
	return len(t) >= len(marker) && strings.Trim(t, marker[:1]) == ""
}

func goFence(line string) (marker, options string, ok bool) {
	marker, info := fence(line)
	if marker == "" || marker[0] != '`' {
		return "", "", false
	}
	info = strings.TrimLeft(info, " \t")
	fields := strings.Fields(info)
	if len(fields) == 0 || fields[0] != Language || !strings.HasPrefix(info, Language) {
		return "", "", false
	}
	return marker, strings.TrimSpace(info[len(Language):]), true
}

// Parse reads a chapter. On an error it still returns the cells read so far
// (and the unclosed one), so a caller can show what it got.
func Parse(src []byte) (*notebook.Notebook, error) {
	lines := strings.Split(string(src), "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	nb := notebook.New()
	var errs []error
	i := 0
	if len(lines) > 0 && lines[0] == "---" {
		for j := 1; j < len(lines); j++ {
			if lines[j] != "---" {
				continue
			}
			meta, raw, err := parseHeader(strings.Join(lines[1:j], "\n"))
			if err != nil {
				errs = append(errs, fmt.Errorf("%w: line 1: header: %w", ErrMetadata, err))
				raw = true
			}
			if raw {
				nb.Cells = append(nb.Cells, &notebook.Cell{Type: notebook.Raw, Source: strings.Join(lines[:j+1], "\n"), Metadata: map[string]any{}})
			} else {
				nb.Metadata = meta
			}
			i = j + 1
			break
		}
	}
	var md []string
	flush := func() {
		for len(md) > 0 && blank(md[0]) {
			md = md[1:]
		}
		for len(md) > 0 && blank(md[len(md)-1]) {
			md = md[:len(md)-1]
		}
		if len(md) > 0 {
			nb.Cells = append(nb.Cells, &notebook.Cell{Type: notebook.Markdown, Source: strings.Join(md, "\n"), Metadata: map[string]any{}})
		}
		md = nil
	}
	// block collects lines up to the end marker; ok is false at end of file.
	block := func(start int, end func(string) bool) (body []string, next int, ok bool) {
		for j := start; j < len(lines); j++ {
			if end(lines[j]) {
				return body, j + 1, true
			}
			body = append(body, lines[j])
		}
		return body, len(lines), false
	}
	cell := func(typ string, body []string, opts string, line int) {
		meta, err := parseOptions(opts)
		if err != nil {
			errs = append(errs, fmt.Errorf("%w: line %d: %w", ErrMetadata, line, err))
		}
		nb.Cells = append(nb.Cells, &notebook.Cell{Type: typ, Source: strings.Join(body, "\n"), Metadata: meta})
	}
	// enclosed makes the cell of type typ that starts at line i and ends at
	// the line end accepts; missing says what is absent when none does.
	enclosed := func(typ, opts string, end func(string) bool, missing string) {
		flush()
		body, next, closed := block(i+1, end)
		cell(typ, body, opts, i+1)
		if !closed {
			errs = append(errs, fmt.Errorf("%w: line %d: %s", ErrUnclosed, i+1, missing))
		}
		i = next
	}
	for i < len(lines) {
		line := lines[i]
		if marker, opts, ok := goFence(line); ok {
			enclosed(notebook.Code, opts, func(l string) bool { return closes(l, marker) }, "code cell has no closing "+marker)
			continue
		}
		if m := regionStart.FindStringSubmatch(line); m != nil {
			end := anyEnd[m[1]]
			enclosed(notebook.Markdown, m[2], func(l string) bool { return strings.TrimSpace(l) == end }, "no "+end)
			continue
		}
		if m := rawStart.FindStringSubmatch(line); m != nil {
			enclosed(notebook.Raw, m[1], func(l string) bool { return strings.TrimSpace(l) == rawEnd }, "no "+rawEnd)
			continue
		}
		if strings.TrimSpace(line) == regionEnd || strings.TrimSpace(line) == rawEnd {
			// A stray end marker closes nothing; dropping it keeps the
			// prose around it one cell, as jupytext does.
			i++
			continue
		}
		if marker, _ := fence(line); marker != "" {
			// A fenced block in another language is prose: keep it whole,
			// blank lines included.
			body, next, closed := block(i+1, func(l string) bool { return closes(l, marker) })
			md = append(md, line)
			md = append(md, body...)
			if closed {
				md = append(md, lines[next-1])
			}
			i = next
			continue
		}
		if blank(line) && i+1 < len(lines) && blank(lines[i+1]) && len(md) > 0 && !blank(md[len(md)-1]) {
			flush()
			i += 2
			continue
		}
		md = append(md, line)
		i++
	}
	flush()
	nb.EnsureIDs()
	return nb, errors.Join(errs...)
}

// parseHeader reads the YAML header. raw is true when the header is not a
// notebook's (it has no jupyter entry): jupytext keeps it as a raw cell.
func parseHeader(src string) (meta map[string]any, raw bool, err error) {
	var doc map[string]any
	if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
		return nil, true, err
	}
	jup, ok := doc["jupyter"]
	if !ok {
		return nil, true, nil
	}
	meta, ok = jsonCompatible(jup).(map[string]any)
	if !ok {
		if jup != nil {
			return nil, true, fmt.Errorf("jupyter entry is not a mapping")
		}
		meta = map[string]any{}
	}
	switch jt := meta["jupytext"].(type) {
	case map[string]any:
		delete(jt, "text_representation")
		if len(jt) == 0 {
			delete(meta, "jupytext")
		}
	case nil:
		delete(meta, "jupytext") // "jupytext:" with nothing under it
	default:
		return nil, true, fmt.Errorf("jupytext entry is not a mapping")
	}
	delete(doc, "jupyter")
	if len(doc) > 0 {
		jt, _ := meta["jupytext"].(map[string]any)
		if jt == nil {
			jt = map[string]any{}
			meta["jupytext"] = jt
		}
		jt["root_level_metadata"] = jsonCompatible(doc)
	}
	return meta, false, nil
}

// jsonCompatible turns YAML's decoded values into the ones encoding/json
// produces (float64 numbers, string keys).
func jsonCompatible(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[k] = jsonCompatible(x)
		}
		return out
	case map[any]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[fmt.Sprint(k)] = jsonCompatible(x)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = jsonCompatible(x)
		}
		return out
	case int:
		return float64(v)
	case int64:
		return float64(v)
	case uint64:
		return float64(v)
	default:
		return v
	}
}

// parseOptions reads cell metadata written after a fence's language or in a
// region marker: key=JSON pairs, or one JSON object.
func parseOptions(s string) (map[string]any, error) {
	s = strings.TrimSpace(s)
	meta := map[string]any{}
	if s == "" {
		return meta, nil
	}
	if strings.HasPrefix(s, "{") {
		if err := json.Unmarshal([]byte(s), &meta); err != nil {
			return map[string]any{}, err
		}
		return meta, nil
	}
	for s != "" {
		eq := strings.IndexByte(s, '=')
		if word, rest, _ := strings.Cut(s, " "); (eq < 0 || strings.IndexByte(word, '=') < 0) && bareKey.MatchString(word) {
			meta[word] = nil // a key alone: jupytext's null
			s = strings.TrimLeft(rest, " \t")
			continue
		}
		if eq <= 0 {
			return meta, fmt.Errorf("want key=value, got %q", s)
		}
		key := s[:eq]
		if !simpleKey.MatchString(key) {
			return meta, fmt.Errorf("bad key %q", key)
		}
		dec := json.NewDecoder(strings.NewReader(s[eq+1:]))
		var v any
		if err := dec.Decode(&v); err != nil {
			return meta, fmt.Errorf("value of %s: %w", key, err)
		}
		meta[key] = v
		rest := s[eq+1+int(dec.InputOffset()):]
		if rest != "" && rest[0] != ' ' && rest[0] != '\t' {
			return meta, fmt.Errorf("value of %s: junk %q after it", key, rest)
		}
		s = strings.TrimLeft(rest, " \t")
	}
	return meta, nil
}

// formatOptions writes metadata as parseOptions reads it ("" when empty),
// as jupytext writes it: key=value with Python's JSON (json.dumps: ", "
// and ": ", non-ASCII escaped), a key alone for null, and keys sorted as
// nbformat stores them. Keys jupytext cannot write go into one JSON object,
// which jupytext reads.
func formatOptions(meta map[string]any) (string, error) {
	if len(meta) == 0 {
		return "", nil
	}
	keys := notebook.SortedKeys(meta)
	simple := true
	for _, k := range keys {
		simple = simple && simpleKey.MatchString(k)
	}
	if !simple {
		b, err := pythonJSON(meta)
		return string(b), err
	}
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		if meta[k] == nil && bareKey.MatchString(k) {
			parts = append(parts, k)
			continue
		}
		b, err := pythonJSON(meta[k])
		if err != nil {
			return "", err
		}
		parts = append(parts, k+"="+string(b))
	}
	return strings.Join(parts, " "), nil
}

// pythonJSON writes v as Python's json.dumps does by default, which is how
// jupytext writes cell metadata: ", " and ": " between items, keys sorted,
// strings ASCII with \uXXXX escapes. Numbers are encoding/json's.
func pythonJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	var write func(v any) error
	write = func(v any) error {
		switch v := v.(type) {
		case string:
			writePythonString(&b, v)
		case []any:
			b.WriteByte('[')
			for i, x := range v {
				if i > 0 {
					b.WriteString(", ")
				}
				if err := write(x); err != nil {
					return err
				}
			}
			b.WriteByte(']')
		case map[string]any:
			b.WriteByte('{')
			for i, k := range notebook.SortedKeys(v) {
				if i > 0 {
					b.WriteString(", ")
				}
				writePythonString(&b, k)
				b.WriteString(": ")
				if err := write(v[k]); err != nil {
					return err
				}
			}
			b.WriteByte('}')
		default:
			out, err := marshalCompact(v)
			if err != nil {
				return err
			}
			b.Write(out)
		}
		return nil
	}
	if err := write(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// writePythonString writes s as json.dumps(s) (ensure_ascii) does.
func writePythonString(b *bytes.Buffer, s string) {
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\b':
			b.WriteString(`\b`)
		case r == '\f':
			b.WriteString(`\f`)
		case r < 0x20 || (r > 0x7e && r < 0x10000 && r != 0x7f):
			fmt.Fprintf(b, `\u%04x`, r)
		case r >= 0x10000:
			r -= 0x10000
			fmt.Fprintf(b, `\u%04x\u%04x`, 0xd800+(r>>10), 0xdc00+(r&0x3ff))
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
}

func marshalCompact(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMetadata, err)
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// Format writes a notebook as a chapter. Outputs and cell ids are left out.
func Format(nb *notebook.Notebook) ([]byte, error) {
	var b strings.Builder
	if err := writeHeader(&b, nb.Metadata); err != nil {
		return nil, err
	}
	prevPlain := false
	for i, c := range nb.Cells {
		opts, err := formatOptions(withoutEmptyTags(c.Metadata))
		if err != nil {
			return nil, fmt.Errorf("literate: cell %d: %w", i+1, err)
		}
		b.WriteString("\n")
		plain := false
		switch c.Type {
		case notebook.Code:
			marker := codeFence(c.Source)
			b.WriteString(marker + Language)
			if opts != "" {
				b.WriteString(" " + opts)
			}
			b.WriteString("\n" + body(c.Source) + marker + "\n")
		case notebook.Markdown:
			if opts == "" && plainMarkdown(c.Source) {
				if prevPlain {
					b.WriteString("\n")
				}
				b.WriteString(c.Source + "\n")
				plain = true
				break
			}
			if hasLine(c.Source, regionEnd) {
				return nil, fmt.Errorf("%w: cell %d contains %s", ErrUnrepresentable, i+1, regionEnd)
			}
			b.WriteString(marker("region", opts) + "\n" + body(c.Source) + regionEnd + "\n")
		case notebook.Raw:
			if hasLine(c.Source, rawEnd) {
				return nil, fmt.Errorf("%w: cell %d contains %s", ErrUnrepresentable, i+1, rawEnd)
			}
			b.WriteString(marker("raw", opts) + "\n" + body(c.Source) + rawEnd + "\n")
		default:
			return nil, fmt.Errorf("%w: cell %d has type %q", ErrUnrepresentable, i+1, c.Type)
		}
		prevPlain = plain
	}
	return []byte(b.String()), nil
}

// withoutEmptyTags leaves out an empty tags list, which jupytext does not
// write either (metadata_filter.py: "Do not serialize empty tags").
func withoutEmptyTags(meta map[string]any) map[string]any {
	if tags, ok := meta["tags"].([]any); ok && len(tags) == 0 {
		meta = maps.Clone(meta)
		delete(meta, "tags")
	}
	return meta
}

func marker(kind, opts string) string {
	if opts == "" {
		return "<!-- #" + kind + " -->"
	}
	return "<!-- #" + kind + " " + opts + " -->"
}

// body is a cell's text between its markers; an empty cell keeps one
// blank line, as jupytext writes it.
func body(src string) string {
	return src + "\n"
}

func hasLine(src, line string) bool {
	for _, l := range strings.Split(src, "\n") {
		if strings.TrimSpace(l) == line {
			return true
		}
	}
	return false
}

// codeFence returns a backtick run longer than any the source starts a
// line with, so the source cannot close its own cell.
func codeFence(src string) string {
	n := 3
	for _, l := range strings.Split(src, "\n") {
		if m, _ := fence(l); m != "" && m[0] == '`' && len(m) >= n {
			n = len(m) + 1
		}
	}
	return strings.Repeat("`", n)
}

// plainMarkdown reports whether src reads back as exactly one markdown
// cell without region markers.
func plainMarkdown(src string) bool {
	lines := strings.Split(src, "\n")
	if src == "" || blank(lines[0]) || blank(lines[len(lines)-1]) {
		return false
	}
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if m, info := fence(l); m != "" {
			// A closed backtick block in another named language reads back
			// as prose (Parse keeps it whole, and jupytext writes it
			// without region markers); a Go fence would open a code cell,
			// and a bare, tilde or unclosed one is kept in markers.
			end := closingLine(lines[i+1:], m)
			if _, _, isGo := goFence(l); isGo || m[0] != '`' || strings.TrimSpace(info) == "" || end < 0 {
				return false
			}
			body := lines[i+1 : i+1+end]
			for k, in := range body {
				if jupytextMarker.MatchString(strings.TrimSpace(in)) || strings.ContainsRune(in, '\r') ||
					(blank(in) && k+1 < len(body) && blank(body[k+1])) {
					return false // kept in markers rather than risk another reading
				}
			}
			i += 1 + end
			continue
		}
		if jupytextMarker.MatchString(strings.TrimSpace(l)) {
			return false
		}
		if blank(l) && i+1 < len(lines) && blank(lines[i+1]) {
			return false
		}
		if strings.ContainsRune(l, '\r') {
			return false
		}
	}
	return true
}

// closingLine is the index in lines of the first that closes a fence
// opened with marker, -1 when none does.
func closingLine(lines []string, marker string) int {
	for j, l := range lines {
		if closes(l, marker) {
			return j
		}
	}
	return -1
}

func writeHeader(b *strings.Builder, meta map[string]any) error {
	jup := maps.Clone(meta)
	if jup == nil {
		jup = map[string]any{}
	}
	jt := map[string]any{}
	if old, ok := jup["jupytext"].(map[string]any); ok {
		jt = maps.Clone(old)
	}
	root, _ := jt["root_level_metadata"].(map[string]any)
	delete(jt, "root_level_metadata")
	jt["text_representation"] = textRepresentation
	jup["jupytext"] = jt
	doc := map[string]any{"jupyter": jup}
	for k, v := range root {
		if k != "jupyter" {
			doc[k] = v
		}
	}
	node, err := headerNode(doc)
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err == nil {
		err = enc.Encode(node)
	}
	if err == nil {
		err = enc.Close()
	}
	if err != nil {
		return fmt.Errorf("%w: header: %w", ErrMetadata, err)
	}
	b.WriteString("---\n")
	b.Write(buf.Bytes())
	b.WriteString("---\n")
	return nil
}

// headerNode puts the jupyter entry first; maps below it are sorted, as
// jupytext writes them.
func headerNode(doc map[string]any) (*yaml.Node, error) {
	keys := notebook.SortedKeys(doc)
	sort.SliceStable(keys, func(i, j int) bool { return keys[i] == "jupyter" && keys[j] != "jupyter" })
	node := &yaml.Node{Kind: yaml.MappingNode}
	for _, k := range keys {
		var key, value yaml.Node
		key.SetString(k)
		if err := value.Encode(doc[k]); err != nil {
			return nil, err
		}
		node.Content = append(node.Content, &key, &value)
	}
	return node, nil
}
