package notebook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
)

// Cell types.
const (
	Code     = "code"
	Markdown = "markdown"
	Raw      = "raw"
)

// Output types.
const (
	Stream        = "stream"
	DisplayData   = "display_data"
	ExecuteResult = "execute_result"
	Error         = "error"
)

// Format version written by this package.
const (
	Major = 4
	Minor = 5
)

// ErrFormat reports a file that is not an nbformat 4 notebook.
var ErrFormat = errors.New("notebook: not an nbformat 4 notebook")

// Notebook is one nbformat 4 document.
type Notebook struct {
	Cells    []*Cell
	Metadata map[string]any
	// Minor is nbformat_minor; New and Read set it to at least 5.
	Minor int
}

// Cell is one cell. Outputs and ExecutionCount apply to code cells only.
type Cell struct {
	Type           string
	ID             string
	Source         string
	Metadata       map[string]any
	Outputs        []*Output
	ExecutionCount *int
	// Attachments are kept as read (markdown and raw cells).
	Attachments map[string]any
}

// Output is one output of a code cell.
type Output struct {
	Type string
	// Stream: Name is "stdout" or "stderr".
	Name, Text string
	// Display data and execute results: a MIME bundle (text values are
	// strings here, whatever the file used) and its metadata.
	Data     map[string]any
	Metadata map[string]any
	// Execute results.
	ExecutionCount *int
	// Errors.
	EName, EValue string
	Traceback     []string
	// DisplayID names a display output so a later update can replace it.
	// Jupyter keeps it in the transient part of messages, never in files.
	DisplayID string `json:"-"`
}

// New returns an empty notebook.
func New() *Notebook {
	return &Notebook{Metadata: map[string]any{}, Minor: Minor}
}

// Tags returns the cell's metadata tags.
func (c *Cell) Tags() []string {
	list, _ := c.Metadata["tags"].([]any)
	var tags []string
	for _, t := range list {
		if s, ok := t.(string); ok {
			tags = append(tags, s)
		}
	}
	return tags
}

// HasTag reports whether the cell carries tag.
func (c *Cell) HasTag(tag string) bool {
	for _, t := range c.Tags() {
		if t == tag {
			return true
		}
	}
	return false
}

var idPattern = regexp.MustCompile(`^[a-zA-Z0-9-_]{1,64}$`)

// EnsureIDs gives every cell without a valid, unique id one derived from
// its position, so the same notebook always gets the same ids.
func (nb *Notebook) EnsureIDs() {
	seen := map[string]bool{}
	for _, c := range nb.Cells {
		if idPattern.MatchString(c.ID) && !seen[c.ID] {
			seen[c.ID] = true
		}
	}
	used := map[string]bool{}
	for i, c := range nb.Cells {
		if idPattern.MatchString(c.ID) && !used[c.ID] {
			used[c.ID] = true
			continue
		}
		id := fmt.Sprintf("cell-%d", i+1)
		for n := 2; seen[id] || used[id]; n++ {
			id = fmt.Sprintf("cell-%d-%d", i+1, n)
		}
		c.ID = id
		used[id] = true
	}
}

// StripOutputs clears outputs and execution counts of code cells.
func (nb *Notebook) StripOutputs() {
	for _, c := range nb.Cells {
		if c.Type == Code {
			c.Outputs = nil
			c.ExecutionCount = nil
		}
	}
}

// Marshal encodes the notebook as Jupyter writes it: one-space indent,
// sorted keys, multi-line strings as lists of lines, a final newline.
func (nb *Notebook) Marshal() ([]byte, error) {
	cells := make([]any, 0, len(nb.Cells))
	for i, c := range nb.Cells {
		m, err := c.toJSON()
		if err != nil {
			return nil, fmt.Errorf("notebook: cell %d: %w", i+1, err)
		}
		cells = append(cells, m)
	}
	meta := nb.Metadata
	if meta == nil {
		meta = map[string]any{}
	}
	minor := nb.Minor
	if minor < Minor {
		minor = Minor
	}
	doc := map[string]any{"cells": cells, "metadata": meta, "nbformat": Major, "nbformat_minor": minor}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", " ")
	if err := enc.Encode(doc); err != nil {
		return nil, fmt.Errorf("notebook: encode: %w", err)
	}
	return buf.Bytes(), nil
}

func orEmpty(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

func (c *Cell) toJSON() (map[string]any, error) {
	m := map[string]any{
		"cell_type": c.Type,
		"id":        c.ID,
		"metadata":  orEmpty(c.Metadata),
		"source":    SplitLines(c.Source),
	}
	switch c.Type {
	case Code:
		outs := make([]any, 0, len(c.Outputs))
		for _, o := range c.Outputs {
			om, err := o.toJSON()
			if err != nil {
				return nil, err
			}
			outs = append(outs, om)
		}
		m["outputs"] = outs
		m["execution_count"] = intOrNil(c.ExecutionCount)
	case Markdown, Raw:
		if c.Attachments != nil {
			m["attachments"] = c.Attachments
		}
	default:
		return nil, fmt.Errorf("unknown cell type %q", c.Type)
	}
	return m, nil
}

func intOrNil(p *int) any {
	if p == nil {
		return nil
	}
	return *p
}

func (o *Output) toJSON() (map[string]any, error) {
	m := map[string]any{"output_type": o.Type}
	switch o.Type {
	case Stream:
		m["name"] = o.Name
		m["text"] = SplitLines(o.Text)
	case DisplayData, ExecuteResult:
		m["data"] = encodeBundle(o.Data)
		m["metadata"] = orEmpty(o.Metadata)
		if o.Type == ExecuteResult {
			m["execution_count"] = intOrNil(o.ExecutionCount)
		}
	case Error:
		m["ename"] = o.EName
		m["evalue"] = o.EValue
		tb := o.Traceback
		if tb == nil {
			tb = []string{}
		}
		m["traceback"] = tb
	default:
		return nil, fmt.Errorf("unknown output type %q", o.Type)
	}
	return m, nil
}

var jsonMIME = regexp.MustCompile(`^application/(.*\+)?json$`)

// IsJSONMIME reports whether a MIME type's value is JSON rather than text.
func IsJSONMIME(mime string) bool { return jsonMIME.MatchString(mime) }

func encodeBundle(data map[string]any) map[string]any {
	out := make(map[string]any, len(data))
	for k, v := range data {
		if s, ok := v.(string); ok && !IsJSONMIME(k) {
			out[k] = SplitLines(s)
			continue
		}
		out[k] = v
	}
	return out
}

func decodeBundle(data map[string]any) map[string]any {
	if data == nil {
		return nil
	}
	out := make(map[string]any, len(data))
	for k, v := range data {
		if list, ok := v.([]any); ok && !IsJSONMIME(k) {
			var b strings.Builder
			for _, l := range list {
				s, _ := l.(string)
				b.WriteString(s)
			}
			out[k] = b.String()
			continue
		}
		out[k] = v
	}
	return out
}

// SplitLines splits text the way Jupyter stores it: each line keeps its
// newline, the last one has none; empty text is an empty list.
func SplitLines(s string) []string {
	return slices.AppendSeq([]string{}, strings.Lines(s))
}

// multiline is a string or a list of strings, as nbformat allows.
type multiline string

func (m *multiline) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*m = multiline(s)
		return nil
	}
	var list []string
	if err := json.Unmarshal(b, &list); err != nil {
		return fmt.Errorf("want a string or a list of strings: %w", err)
	}
	*m = multiline(strings.Join(list, ""))
	return nil
}

type fileNotebook struct {
	Cells         []fileCell     `json:"cells"`
	Metadata      map[string]any `json:"metadata"`
	NBFormat      int            `json:"nbformat"`
	NBFormatMinor int            `json:"nbformat_minor"`
}

type fileCell struct {
	CellType       string         `json:"cell_type"`
	ID             string         `json:"id"`
	Source         multiline      `json:"source"`
	Metadata       map[string]any `json:"metadata"`
	Outputs        []fileOutput   `json:"outputs"`
	ExecutionCount *int           `json:"execution_count"`
	Attachments    map[string]any `json:"attachments"`
}

type fileOutput struct {
	OutputType     string         `json:"output_type"`
	Name           string         `json:"name"`
	Text           multiline      `json:"text"`
	Data           map[string]any `json:"data"`
	Metadata       map[string]any `json:"metadata"`
	ExecutionCount *int           `json:"execution_count"`
	EName          string         `json:"ename"`
	EValue         string         `json:"evalue"`
	Traceback      []string       `json:"traceback"`
}

// Parse decodes a notebook file. It accepts nbformat 4 of any minor
// version; cells without ids get ids (see EnsureIDs).
func Parse(data []byte) (*Notebook, error) {
	var f fileNotebook
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrFormat, err)
	}
	if f.NBFormat != Major {
		return nil, fmt.Errorf("%w: nbformat %d", ErrFormat, f.NBFormat)
	}
	nb := &Notebook{Metadata: orEmpty(f.Metadata), Minor: max(f.NBFormatMinor, Minor)}
	for _, fc := range f.Cells {
		c := &Cell{Type: fc.CellType, ID: fc.ID, Source: string(fc.Source), Metadata: orEmpty(fc.Metadata), ExecutionCount: fc.ExecutionCount, Attachments: fc.Attachments}
		for _, fo := range fc.Outputs {
			c.Outputs = append(c.Outputs, &Output{Type: fo.OutputType, Name: fo.Name, Text: string(fo.Text),
				Data: decodeBundle(fo.Data), Metadata: fo.Metadata, ExecutionCount: fo.ExecutionCount,
				EName: fo.EName, EValue: fo.EValue, Traceback: fo.Traceback})
		}
		nb.Cells = append(nb.Cells, c)
	}
	nb.EnsureIDs()
	return nb, nil
}

// Equal reports whether two notebooks hold the same cells (type, source,
// metadata and, when withOutputs, outputs and counts) and the same
// notebook metadata. Cell ids are not compared: they are names, not content.
func Equal(a, b *Notebook, withOutputs bool) bool {
	return Diff(a, b, withOutputs) == ""
}

// Diff describes the first difference Equal would find, or "" when none.
func Diff(a, b *Notebook, withOutputs bool) string {
	if !jsonEqual(a.Metadata, b.Metadata) {
		return "notebook metadata differs"
	}
	if len(a.Cells) != len(b.Cells) {
		return fmt.Sprintf("%d cells against %d", len(a.Cells), len(b.Cells))
	}
	for i := range a.Cells {
		x, y := a.Cells[i], b.Cells[i]
		switch {
		case x.Type != y.Type:
			return fmt.Sprintf("cell %d: %s against %s", i+1, x.Type, y.Type)
		case x.Source != y.Source:
			return fmt.Sprintf("cell %d: source differs", i+1)
		case !jsonEqual(orEmpty(x.Metadata), orEmpty(y.Metadata)):
			return fmt.Sprintf("cell %d: metadata differs", i+1)
		case !jsonEqual(x.Attachments, y.Attachments):
			return fmt.Sprintf("cell %d: attachments differ", i+1)
		}
		if withOutputs && x.Type == Code {
			xo, _ := x.toJSON()
			yo, _ := y.toJSON()
			if !jsonEqual(xo["outputs"], yo["outputs"]) || !jsonEqual(xo["execution_count"], yo["execution_count"]) {
				return fmt.Sprintf("cell %d: outputs differ", i+1)
			}
		}
	}
	return ""
}

// jsonEqual compares values by their canonical JSON (maps sort their keys),
// so 1 and 1.0 and int and float64 compare equal.
func jsonEqual(a, b any) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && bytes.Equal(x, y)
}

// SortedKeys returns a map's keys in order.
func SortedKeys(m map[string]any) []string {
	return slices.Sorted(maps.Keys(m))
}

// CommlabKey is the notebook metadata entry where commlab records a run
// (metadata.commlab.run: status, started, duration_s, executed, cells).
const CommlabKey = "commlab"
