package export

import (
	"bytes"
	"fmt"
	"html"
	"regexp"
	"strings"

	xhtml "golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// polish is the last pass over a page's HTML, for every table and text
// whatever produced it (markdown, an HTML output a cell printed, the
// doctor's raw cells): each table column is aligned by its content (text
// left, numbers right), a number keeps its unit on its line ("64 KiB",
// "74.59 µs" with a no-break space), and mentions of chapters link to
// their pages. It rewrites only the start tags of table cells and text
// outside code, preformatted text, scripts, styles and drawings; every
// other byte is copied as the tokenizer read it.
func polish(doc []byte, chapters Chapters, self int) []byte {
	aligns := columnAlignments(doc)
	var out bytes.Buffer
	z := xhtml.NewTokenizer(bytes.NewReader(doc))
	var (
		tables   []*tableState // open tables, innermost last
		tableNo  int
		verbatim int // depth inside pre, code, script, style, svg, textarea, title
		inLink   int
	)
	for {
		tt := z.Next()
		if tt == xhtml.ErrorToken {
			break
		}
		raw := z.Raw()
		switch tt {
		case xhtml.StartTagToken, xhtml.SelfClosingTagToken:
			name, _ := z.TagName()
			a := atom.Lookup(name)
			switch {
			case a == atom.Table:
				tables = append(tables, &tableState{align: aligns[tableNo]})
				tableNo++
			case a == atom.Tr && len(tables) > 0:
				tables[len(tables)-1].col = 0
			case (a == atom.Td || a == atom.Th) && len(tables) > 0:
				t := tables[len(tables)-1]
				span := cellSpan(raw)
				// The content decides, not a markdown column's colon or a
				// style: one look for every table on the page.
				raw = dropAlignment(raw)
				if span == 1 && t.col < len(t.align) && t.align[t.col] == alignNumber {
					raw = addClass(raw, "num")
				}
				t.col += span
			case a == atom.A:
				inLink++
			case isVerbatim(a) && tt == xhtml.StartTagToken:
				verbatim++
			}
			out.Write(raw)
		case xhtml.EndTagToken:
			name, _ := z.TagName()
			a := atom.Lookup(name)
			switch {
			case a == atom.Table && len(tables) > 0:
				tables = tables[:len(tables)-1]
			case a == atom.A && inLink > 0:
				inLink--
			case isVerbatim(a) && verbatim > 0:
				verbatim--
			}
			out.Write(raw)
		case xhtml.TextToken:
			if verbatim > 0 {
				out.Write(raw)
				continue
			}
			s := keepUnits(string(raw))
			if inLink == 0 {
				s = chapters.link(s, self)
			}
			out.WriteString(s)
		default:
			out.Write(raw)
		}
	}
	return out.Bytes()
}

// isVerbatim names the elements whose text polish leaves as it is.
func isVerbatim(a atom.Atom) bool {
	switch a {
	case atom.Pre, atom.Code, atom.Script, atom.Style, atom.Svg, atom.Textarea, atom.Title, atom.Kbd, atom.Samp:
		return true
	}
	return false
}

type tableState struct {
	align []alignment
	col   int
}

type alignment int

const (
	alignText alignment = iota
	alignNumber
)

// columnAlignments reads every table of doc, in document order, and says
// for each column whether its body cells are all numbers (N/A and empty
// cells aside): those columns align right, all others left.
func columnAlignments(doc []byte) [][]alignment {
	type column struct{ numbers, texts int }
	type table struct {
		cols   []column
		col    int
		inBody bool // a td, or a th below the first row
		row    int
		cell   *strings.Builder
		cellAt int
	}
	var (
		out   [][]alignment
		open  []*table
		index []int // open tables' positions in out
	)
	z := xhtml.NewTokenizer(bytes.NewReader(doc))
	finishCell := func(t *table) {
		if t.cell == nil {
			return
		}
		v := strings.TrimSpace(strings.ReplaceAll(t.cell.String(), "\u00a0", " "))
		for len(t.cols) <= t.cellAt {
			t.cols = append(t.cols, column{})
		}
		switch {
		case !t.inBody || isPlaceholder(v):
		case numberCell.MatchString(v):
			t.cols[t.cellAt].numbers++
		default:
			t.cols[t.cellAt].texts++
		}
		t.cell = nil
	}
	for {
		tt := z.Next()
		if tt == xhtml.ErrorToken {
			break
		}
		switch tt {
		case xhtml.StartTagToken, xhtml.SelfClosingTagToken:
			name, _ := z.TagName()
			a := atom.Lookup(name)
			if a == atom.Table {
				if len(open) > 0 {
					finishCell(open[len(open)-1])
				}
				open = append(open, &table{row: -1})
				index = append(index, len(out))
				out = append(out, nil)
				continue
			}
			if len(open) == 0 {
				continue
			}
			t := open[len(open)-1]
			switch a {
			case atom.Tr:
				finishCell(t)
				t.row++
				t.col = 0
			case atom.Td, atom.Th:
				finishCell(t)
				span := cellSpan(z.Raw())
				t.inBody = a == atom.Td // header cells say what a column is, not what it holds
				if span == 1 {
					t.cell = &strings.Builder{}
					t.cellAt = t.col
				}
				t.col += span
			}
		case xhtml.EndTagToken:
			name, _ := z.TagName()
			a := atom.Lookup(name)
			if len(open) == 0 {
				continue
			}
			t := open[len(open)-1]
			switch a {
			case atom.Td, atom.Th:
				finishCell(t)
			case atom.Table:
				finishCell(t)
				aligns := make([]alignment, len(t.cols))
				for i, c := range t.cols {
					if c.numbers > 0 && c.texts == 0 {
						aligns[i] = alignNumber
					}
				}
				out[index[len(index)-1]] = aligns
				open, index = open[:len(open)-1], index[:len(index)-1]
			}
		case xhtml.TextToken:
			if len(open) > 0 {
				if t := open[len(open)-1]; t.cell != nil {
					t.cell.WriteString(html.UnescapeString(string(z.Raw())))
				}
			}
		}
	}
	return out
}

// numberCell is a table cell holding one number, perhaps signed, grouped,
// with a fraction or an exponent, after an approximation sign and before
// a unit: "1,024", "-0.5", "1e+06", "74.59 µs", "14.27 GB/s", "92%",
// "1.5x", "~20 µs", "3/8", and one with a note in parentheses after it,
// "22.15 µs (+184%)".
var numberCell = regexp.MustCompile(`^[~≈<>≤≥]?\s*[-+−±]?(\d{1,3}(,\d{3})+|\d+)(\.\d+)?([eE][-+]?\d+)?(/\d+)?\s*([%x×]|[A-Za-zµμ]{1,5}(/s)?)?(\s*\([^()]*\))?$`)

// isPlaceholder is a cell that says there is no value.
func isPlaceholder(v string) bool {
	switch strings.ToLower(v) {
	case "", "n/a", "na", "-", "—", "–", "?", "none", "not run", "n.a.":
		return true
	}
	return false
}

var (
	colspanAttr   = regexp.MustCompile(`(?i)\bcolspan\s*=\s*["']?(\d+)`)
	alignmentAttr = regexp.MustCompile(`(?i)\balign\s*=|text-align`)
	classAttr     = regexp.MustCompile(`(?i)\bclass\s*=\s*"([^"]*)"`)
)

// cellSpan is a cell's colspan, 1 when it has none.
func cellSpan(startTag []byte) int {
	m := colspanAttr.FindSubmatch(startTag)
	if m == nil {
		return 1
	}
	n := 0
	for _, c := range m[1] {
		n = n*10 + int(c-'0')
		if n > 1000 {
			return 1000
		}
	}
	return max(n, 1)
}

var (
	alignAttr     = regexp.MustCompile(`(?i)\s+align\s*=\s*("[^"]*"|'[^']*'|[^\s>]+)`)
	styleAttr     = regexp.MustCompile(`(?i)(\s+style\s*=\s*)("([^"]*)"|'([^']*)')`)
	textAlignDecl = regexp.MustCompile(`(?i)\s*text-align\s*:\s*[^;"']*;?`)
)

// dropAlignment removes a cell's own horizontal alignment (the align
// attribute, text-align in its style), leaving everything else.
func dropAlignment(startTag []byte) []byte {
	if !alignmentAttr.Match(startTag) {
		return startTag
	}
	out := alignAttr.ReplaceAll(startTag, nil)
	return styleAttr.ReplaceAllFunc(out, func(m []byte) []byte {
		sub := styleAttr.FindSubmatch(m)
		decls, quote := sub[3], byte('"')
		if len(sub[4]) > 0 || bytes.HasPrefix(sub[2], []byte("'")) {
			decls, quote = sub[4], '\''
		}
		rest := bytes.TrimSpace(textAlignDecl.ReplaceAll(decls, nil))
		if len(rest) == 0 {
			return nil
		}
		return append(append(append(append([]byte{}, sub[1]...), quote), rest...), quote)
	})
}

// addClass adds a class to a start tag.
func addClass(startTag []byte, class string) []byte {
	if m := classAttr.FindSubmatchIndex(startTag); m != nil {
		for _, c := range strings.Fields(string(startTag[m[2]:m[3]])) {
			if c == class {
				return startTag
			}
		}
		out := append([]byte{}, startTag[:m[3]]...)
		out = append(out, ' ')
		out = append(out, class...)
		return append(out, startTag[m[3]:]...)
	}
	end := len(startTag) - 1
	if bytes.HasSuffix(startTag, []byte("/>")) {
		end--
	}
	out := append([]byte{}, startTag[:end]...)
	out = append(out, ` class="`+class+`"`...)
	return append(out, startTag[end:]...)
}

// unitAfterNumber is a number, a space, and a unit that belongs to it.
var unitAfterNumber = regexp.MustCompile(`(\d)[ \t]+(KiB/s|MiB/s|GiB/s|TiB/s|KB/s|MB/s|GB/s|TB/s|kB/s|B/s|Gb/s|Mb/s|Tb/s|Gbps|Mbps|GT/s|KiB|MiB|GiB|TiB|PiB|KB|kB|MB|GB|TB|PB|B|ns|µs|μs|us|ms|s|min|h|GHz|MHz|W|x|GPUs?|ranks?|nodes?|bytes|lanes|hops?|channels?)\b|(\d)[ \t]+(%|×)`)

// keepUnits joins each number to its unit with a no-break space, and
// writes microseconds as µs.
func keepUnits(text string) string {
	return unitAfterNumber.ReplaceAllStringFunc(text, func(m string) string {
		sub := unitAfterNumber.FindStringSubmatch(m)
		digit, unit := sub[1]+sub[3], sub[2]+sub[4]
		if unit == "us" {
			unit = "µs"
		}
		return digit + "\u00a0" + unit
	})
}

// Chapters says where chapter pages are, to link them: Names maps a
// chapter's number to its name (NN-slug) and URL gives the address of a
// named chapter's page. The zero value links nothing.
type Chapters struct {
	Names map[int]string
	URL   func(name string) string
}

// ChapterPages links chapters to pages NAME.html in the folder base ("" for
// the page's own folder), for the names given (NN-slug, with or without
// a folder and extension; other names are left out).
func ChapterPages(base string, names []string) Chapters {
	c := Chapters{Names: map[int]string{}, URL: func(name string) string { return base + name + ".html" }}
	for _, n := range names {
		if num, ok := ChapterNumber(n); ok {
			slug := n[strings.LastIndexAny(n, `/\`)+1:]
			if i := strings.IndexByte(slug, '.'); i >= 0 {
				slug = slug[:i]
			}
			if _, dup := c.Names[num]; !dup {
				c.Names[num] = slug
			}
		}
	}
	return c
}

// Href is the address of chapter n's page.
func (c Chapters) Href(n int) (string, bool) {
	name, ok := c.Names[n]
	if !ok || c.URL == nil {
		return "", false
	}
	return c.URL(name), true
}

// chapterMention is "chapter 4", "Chapter 2's", "chapters 5 and 6",
// "chapters 1, 2 and 4", "chapters 5-7".
var chapterMention = regexp.MustCompile(`\b([Cc]hapters?)(\s+)(\d{1,2})\b((?:(?:\s*,\s*|\s+(?:and|or|to)\s+|\s*[-–]\s*)\d{1,2}\b)*)`)

var mentionedNumber = regexp.MustCompile(`\d{1,2}`)

// chapterName is a chapter's file name standing alone: "06-nccl-tests".
var chapterName = regexp.MustCompile(`\b\d\d-[a-z0-9]+(?:-[a-z0-9]+)*\b`)

// LinkText links each mention of a chapter in text (already escaped as
// HTML, outside any link) to its page: "chapter 4" as a whole, each number
// of "chapters 5 and 6", and a chapter's name ("06-nccl-tests"). Chapters
// without a page stay plain text. It is the one linker of chapter
// mentions: pages, the index and the doctor's report go through it.
func (c Chapters) LinkText(escaped string) string { return c.link(escaped, -1) }

// link is LinkText leaving mentions of chapter self (the page's own) plain.
func (c Chapters) link(escaped string, self int) string {
	if len(c.Names) == 0 || c.URL == nil {
		return escaped
	}
	href := func(n int) (string, bool) {
		if n == self {
			return "", false
		}
		return c.Href(n)
	}
	// Names first: the links the mentions make carry names in their hrefs.
	s := chapterName.ReplaceAllStringFunc(escaped, func(name string) string {
		n, ok := ChapterNumber(name)
		if !ok || c.Names[n] != name {
			return name
		}
		if h, ok := href(n); ok {
			return fmt.Sprintf(`<a class="chapter" href="%s">%s</a>`, html.EscapeString(h), name)
		}
		return name
	})
	return chapterMention.ReplaceAllStringFunc(s, func(m string) string {
		sub := chapterMention.FindStringSubmatch(m)
		var b strings.Builder
		first := 0
		fmt.Sscan(sub[3], &first)
		if h, ok := href(first); ok {
			fmt.Fprintf(&b, `<a class="chapter" href="%s">%s%s%s</a>`, html.EscapeString(h), sub[1], sub[2], sub[3])
		} else {
			b.WriteString(sub[1] + sub[2] + sub[3])
		}
		b.WriteString(mentionedNumber.ReplaceAllStringFunc(sub[4], func(num string) string {
			n := 0
			fmt.Sscan(num, &n)
			if h, ok := href(n); ok {
				return fmt.Sprintf(`<a class="chapter" href="%s">%s</a>`, html.EscapeString(h), num)
			}
			return num
		}))
		return b.String()
	})
}
