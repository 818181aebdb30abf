package export

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"mime"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/alecthomas/chroma/v2"
	chromahtml "github.com/alecthomas/chroma/v2/formatters/html"
	"github.com/alecthomas/chroma/v2/lexers"
	"github.com/alecthomas/chroma/v2/styles"
	"github.com/commlab/commlab/notebook"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	goldhtml "github.com/yuin/goldmark/renderer/html"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// Options control a page.
type Options struct {
	// Title of the page; "" takes the notebook's first heading.
	Title string
	// BaseDir resolves images that markdown cells name by a relative path,
	// so they can be inlined ("" leaves them as links).
	BaseDir string
	// Nav links the page to the index and its neighbours, above and
	// below the content; nil shows no navigation.
	Nav *Nav
	// Chapters says where chapter pages are: mentions of a chapter
	// ("chapter 4", "chapters 5 and 6", "06-nccl-tests") link to them.
	Chapters Chapters
	// Chapter is the page's own chapter number (its mentions stay plain);
	// -1 or a number no chapter has when the page is not a chapter.
	Chapter int
	// IsCheck says whether a code cell checks a learner's answer: folded,
	// its code is labelled to open after answering (its hints explain the
	// answer). nil: no cell is a check. The program hands it in (package
	// cells knows the exercise format).
	IsCheck func(source string) bool
}

// Nav is a page's way to the index and to the chapters before and after
// it; a Link with no Href is left out.
type Nav struct {
	Index, Prev, Next Link
}

// Link is an address and the words a reader clicks.
type Link struct {
	Href, Title string
}

const codeStyle = "github"

// Page writes nb as one HTML document.
func Page(w io.Writer, nb *notebook.Notebook, opts Options) error {
	title := opts.Title
	if title == "" {
		title = Title(nb, "notebook")
	}
	var b bytes.Buffer
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
	fmt.Fprintf(&b, "<title>%s</title>\n<style>\n%s", html.EscapeString(title), pageCSS)
	if err := highlightCSS(&b); err != nil {
		return err
	}
	b.WriteString("</style>\n</head>\n<body>\n<main>\n")
	writeNav(&b, opts.Nav, "top")
	if run := RunOf(nb); run.Status != "" {
		fmt.Fprintf(&b, "<p class=\"run run-%s\">%s</p>\n", html.EscapeString(run.Status), html.EscapeString(run.Summary()))
	}
	md := markdown(opts.BaseDir)
	headingSeen := false
	for i, c := range nb.Cells {
		fmt.Fprintf(&b, "<section class=\"cell %s\" id=\"%s\">\n", c.Type, html.EscapeString(c.ID))
		switch c.Type {
		case notebook.Markdown:
			if sectionHeading.MatchString(c.Source) {
				headingSeen = true
			}
			src := inlineAttachments(c.Source, c.Attachments)
			if err := md.Convert([]byte(src), &b); err != nil {
				return fmt.Errorf("export: cell %d: %w", i+1, err)
			}
		case notebook.Raw:
			if f, _ := c.Metadata["format"].(string); f == "text/html" {
				b.WriteString(c.Source + "\n")
			} else {
				fmt.Fprintf(&b, "<pre class=\"raw\">%s</pre>\n", html.EscapeString(c.Source))
			}
		case notebook.Code:
			prompt := " "
			if c.ExecutionCount != nil {
				prompt = fmt.Sprint(*c.ExecutionCount)
			}
			folded := SourceHidden(c)
			if folded {
				fmt.Fprintf(&b, "<details class=\"folded\"><summary>%s (click to show)</summary>\n", foldedLabel(c, headingSeen, opts.IsCheck))
			}
			fmt.Fprintf(&b, "<div class=\"input\"><span class=\"prompt\">[%s]</span>", prompt)
			if err := highlight(&b, c.Source); err != nil {
				return fmt.Errorf("export: cell %d: %w", i+1, err)
			}
			b.WriteString("</div>\n")
			if folded {
				b.WriteString("</details>\n")
			}
			for _, o := range c.Outputs {
				if err := output(&b, o, md); err != nil {
					return fmt.Errorf("export: cell %d: %w", i+1, err)
				}
			}
		}
		b.WriteString("</section>\n")
	}
	writeNav(&b, opts.Nav, "bottom")
	b.WriteString("</main>\n</body>\n</html>\n")
	_, err := w.Write(polish(b.Bytes(), opts.Chapters, opts.Chapter))
	return err
}

// sectionHeading is a markdown cell that opens a section of a chapter.
var sectionHeading = regexp.MustCompile(`(?m)^##\s`)

// SourceHidden says whether a code cell's source is folded away
// (metadata jupyter.source_hidden, as JupyterLab and Notebook 7 write it).
func SourceHidden(c *notebook.Cell) bool {
	j, _ := c.Metadata["jupyter"].(map[string]any)
	hidden, _ := j["source_hidden"].(bool)
	return hidden
}

// foldedLabel names a folded cell: setup before the chapter's first
// section (or a cell tagged setup), an exercise's check after it (its hints
// explain the answer: the label says to open it after answering), hidden
// code otherwise.
func foldedLabel(c *notebook.Cell, afterFirstSection bool, isCheck func(string) bool) string {
	tags, _ := c.Metadata["tags"].([]any)
	for _, t := range tags {
		if t == "setup" {
			return "setup code"
		}
	}
	if !afterFirstSection {
		return "setup code"
	}
	if isCheck != nil && isCheck(c.Source) {
		return "the check's code, with its hints: open it after you answer"
	}
	return "code"
}

// writeNav writes the links to the previous chapter, the index and the
// next chapter.
func writeNav(b *bytes.Buffer, nav *Nav, where string) {
	if nav == nil {
		return
	}
	fmt.Fprintf(b, "<nav class=\"pages %s\">", where)
	link := func(class, arrowBefore, arrowAfter string, l Link) {
		if l.Href == "" {
			fmt.Fprintf(b, "<span class=\"%s\"></span>", class)
			return
		}
		fmt.Fprintf(b, "<a class=\"%s\" href=\"%s\">%s%s%s</a>", class, html.EscapeString(l.Href), arrowBefore, html.EscapeString(l.Title), arrowAfter)
	}
	link("prev", "← ", "", nav.Prev)
	link("index", "", "", nav.Index)
	link("next", "", " →", nav.Next)
	b.WriteString("</nav>\n")
}

var headingRE = regexp.MustCompile(`(?m)^#{1,6}\s+(.+?)\s*#*\s*$`)

// Title is the text of the notebook's first markdown heading, or fallback.
func Title(nb *notebook.Notebook, fallback string) string {
	for _, c := range nb.Cells {
		if c.Type != notebook.Markdown {
			continue
		}
		if m := headingRE.FindStringSubmatch(c.Source); m != nil {
			return m[1]
		}
	}
	return fallback
}

func markdown(baseDir string) goldmark.Markdown {
	opts := []goldmark.Option{
		goldmark.WithExtensions(extension.GFM),
		goldmark.WithRendererOptions(goldhtml.WithUnsafe()),
	}
	if baseDir != "" {
		opts = append(opts, goldmark.WithParserOptions(parser.WithASTTransformers(util.Prioritized(imageInliner{baseDir}, 100))))
	}
	return goldmark.New(opts...)
}

// imageInliner replaces relative image paths with data URIs.
type imageInliner struct{ dir string }

func (t imageInliner) Transform(doc *ast.Document, _ text.Reader, _ parser.Context) {
	ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		img, ok := n.(*ast.Image)
		if !entering || !ok {
			return ast.WalkContinue, nil
		}
		dest := string(img.Destination)
		if strings.Contains(dest, ":") || strings.HasPrefix(dest, "/") {
			return ast.WalkContinue, nil
		}
		data, err := os.ReadFile(filepath.Join(t.dir, filepath.FromSlash(dest)))
		if err != nil {
			return ast.WalkContinue, nil
		}
		typ := mime.TypeByExtension(filepath.Ext(dest))
		if typ == "" {
			typ = "application/octet-stream"
		}
		img.Destination = []byte("data:" + typ + ";base64," + base64.StdEncoding.EncodeToString(data))
		return ast.WalkContinue, nil
	})
}

var attachmentRef = regexp.MustCompile(`attachment:([^)\s"']+)`)

// inlineAttachments turns "attachment:name" references into data URIs.
func inlineAttachments(src string, att map[string]any) string {
	if len(att) == 0 {
		return src
	}
	return attachmentRef.ReplaceAllStringFunc(src, func(m string) string {
		bundle, _ := att[m[len("attachment:"):]].(map[string]any)
		for typ, v := range bundle {
			if s, ok := v.(string); ok && strings.HasPrefix(typ, "image/") {
				return "data:" + typ + ";base64," + strings.ReplaceAll(s, "\n", "")
			}
		}
		return m
	})
}

func highlightCSS(w io.Writer) error {
	f := chromahtml.New(chromahtml.WithClasses(true))
	if err := f.WriteCSS(w, styles.Get(codeStyle)); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	return nil
}

func highlight(w io.Writer, src string) error {
	lexer := lexers.Get("go")
	if lexer == nil {
		lexer = lexers.Fallback
	}
	it, err := chroma.Coalesce(lexer).Tokenise(nil, src)
	if err != nil {
		return err
	}
	return chromahtml.New(chromahtml.WithClasses(true)).Format(w, styles.Get(codeStyle), it)
}

// columnLayout is a line laid out in columns: a run of two spaces or a
// tab inside it, a column rule, or box drawing.
var columnLayout = regexp.MustCompile(`\S( {2,}|\t)\S|\||[\x{2500}-\x{257F}]`)

// proseClass is " prose" for printed text whose lines are sentences, not
// columns: it may wrap at the page's edge. Text laid out in columns (a
// tuning table, a matrix, a log) keeps its lines and scrolls sideways.
func proseClass(text string) string {
	if columnLayout.MatchString(text) {
		return ""
	}
	return " prose"
}

// preference orders the MIME types of a bundle, richest first, as
// JupyterLab picks them.
var preference = []string{"text/html", "image/svg+xml", "image/png", "image/jpeg", "image/gif", "text/markdown", "text/latex", "application/json", "text/plain"}

var ansi = regexp.MustCompile("\x1b\\[[0-9;]*[A-Za-z]")

func output(b *bytes.Buffer, o *notebook.Output, md goldmark.Markdown) error {
	switch o.Type {
	case notebook.Stream:
		text := ansi.ReplaceAllString(o.Text, "")
		fmt.Fprintf(b, "<pre class=\"output stream %s%s\">%s</pre>\n", html.EscapeString(o.Name), proseClass(text), html.EscapeString(text))
	case notebook.Error:
		fmt.Fprintf(b, "<div class=\"output error\"><p class=\"ename\">%s: %s</p>", html.EscapeString(o.EName), html.EscapeString(o.EValue))
		if len(o.Traceback) > 0 {
			fmt.Fprintf(b, "<pre>%s</pre>", html.EscapeString(ansi.ReplaceAllString(strings.Join(o.Traceback, "\n"), "")))
		}
		b.WriteString("</div>\n")
	case notebook.DisplayData, notebook.ExecuteResult:
		b.WriteString("<div class=\"output " + o.Type + "\">")
		if err := bundle(b, o.Data, md); err != nil {
			return err
		}
		b.WriteString("</div>\n")
	}
	return nil
}

func bundle(b *bytes.Buffer, data map[string]any, md goldmark.Markdown) error {
	for _, typ := range preference {
		v, ok := data[typ]
		if !ok {
			continue
		}
		s, _ := v.(string)
		switch typ {
		case "text/html", "image/svg+xml":
			b.WriteString(s)
		case "image/png", "image/jpeg", "image/gif":
			fmt.Fprintf(b, "<img src=\"data:%s;base64,%s\" alt=\"\">", typ, strings.ReplaceAll(strings.TrimSpace(s), "\n", ""))
		case "text/markdown":
			return md.Convert([]byte(s), b)
		case "application/json":
			j, err := json.MarshalIndent(v, "", "  ")
			if err != nil {
				return err
			}
			fmt.Fprintf(b, "<pre class=\"json\">%s</pre>", html.EscapeString(string(j)))
		default:
			text := ansi.ReplaceAllString(s, "")
			fmt.Fprintf(b, "<pre class=\"plain%s\">%s</pre>", proseClass(text), html.EscapeString(text))
		}
		return nil
	}
	return nil
}

// pageCSS lays a page out for a laptop screen (1280 to 1400 px wide) and
// up: prose and outputs in one column of at most 72rem, tables aligned by
// column content (polish adds class num to number columns), preformatted
// text scrolling sideways rather than wrapping.
const pageCSS = `body{margin:0;font:16px/1.55 system-ui,-apple-system,"Segoe UI","Noto Sans","Noto Sans CJK SC",sans-serif;color:#1f2328;background:#fff}
main{max-width:72rem;margin:0 auto;padding:1rem 2rem 2rem}
.cell{margin:0 0 1rem}
.input{display:flex;gap:.5rem;background:#f6f8fa;border:1px solid #d0d7de;border-radius:6px;padding:.5rem;overflow-x:auto}
.input pre{margin:0;background:transparent!important}
.prompt{color:#6e7781;font:13px monospace;min-width:2.5rem}
pre{font:13px/1.45 ui-monospace,SFMono-Regular,Menlo,"DejaVu Sans Mono",monospace;white-space:pre;overflow-x:auto;max-width:100%}
code{font:.9em ui-monospace,SFMono-Regular,Menlo,"DejaVu Sans Mono",monospace}
pre code{font:inherit}
.output{margin:.25rem 0 0 3rem;overflow-x:auto}
.output pre{margin:.25rem 0}
pre.prose{white-space:pre-wrap;overflow-wrap:anywhere}
.output img{max-width:100%;height:auto}
.stream.stderr{background:#fff8c5}
.error{background:#ffebe9;border-left:4px solid #cf222e;padding:.25rem .75rem}
.error .ename{font-weight:600;color:#cf222e;margin:.25rem 0}
details.folded>summary{cursor:pointer;color:#57606a;font-size:14px;margin:.25rem 0}
details.folded[open]>summary{margin-bottom:.35rem}
table{border-collapse:collapse;margin:.5rem 0;display:block;overflow-x:auto;max-width:100%}
th,td{border:1px solid #d0d7de;padding:.25rem .6rem;text-align:left;vertical-align:top}
th{background:#f6f8fa}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
td.num{white-space:nowrap}
td.nowrap{white-space:nowrap}
nav.pages{display:flex;justify-content:space-between;gap:1rem;font-size:15px;padding:.5rem 0;border-bottom:1px solid #d0d7de;margin-bottom:1rem}
nav.pages.bottom{border-bottom:0;border-top:1px solid #d0d7de;margin:2rem 0 0}
nav.pages a{text-decoration:none}
nav.pages a:hover{text-decoration:underline}
nav.pages .prev,nav.pages .next{flex:1}
nav.pages .next{text-align:right}
nav.pages .index{flex:0 0 auto}
.run{font-size:14px;color:#57606a}
.run-failed,.status-failed{color:#cf222e;font-weight:600}
.run-ok,.status-ok{color:#1a7f37}
.run-errors,.status-errors{color:#9a6700}
.paths dt{font-weight:600;margin-top:.75rem}
.paths dd{margin:0 0 0 1rem}
.paths p{margin:.15rem 0}
.path{font-size:15px}
.path a,.path .unwritten,a.chapter{white-space:nowrap}
.unwritten{color:#6e7781}
.optional{color:#57606a;font-size:14px}
`
