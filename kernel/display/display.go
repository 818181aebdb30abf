// Package display is the API notebook cells call to show rich output (HTML,
// Markdown, LaTeX, SVG, PNG, JPEG, JSON, plain text), to update an output in
// place by its display id, and to clear a cell's output. It also turns any
// Go value into a MIME bundle for a cell's result.
//
// display knows nothing of Jupyter's wire protocol: the kernel (or the
// headless runner) installs a publisher with SetPublisher and turns each
// Message into an iopub message or a notebook output. Outside a notebook,
// with no publisher, the plain-text form is printed to standard output.
//
// Plots and tables get their richer renderings in later work; any value that
// has an HTML, SVG, PNG, Markdown or MIMEBundle method is already rendered
// through it.
package display

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"html"
	"os"
	"reflect"
	"sync"
)

// MIME types used in bundles.
const (
	MIMEPlain    = "text/plain"
	MIMEHTML     = "text/html"
	MIMEMarkdown = "text/markdown"
	MIMELatex    = "text/latex"
	MIMESVG      = "image/svg+xml"
	MIMEPNG      = "image/png"
	MIMEJPEG     = "image/jpeg"
	MIMEJSON     = "application/json"
)

// Bundle is one output in several representations, keyed by MIME type, as
// Jupyter's display_data carries it. Binary images are base64 strings.
type Bundle struct {
	Data     map[string]any
	Metadata map[string]any
}

// Empty reports whether the bundle has nothing to show.
func (b Bundle) Empty() bool { return len(b.Data) == 0 }

// Message kinds a publisher receives.
const (
	KindDisplay = "display_data"
	KindUpdate  = "update_display_data"
	KindClear   = "clear_output"
)

// Message is one request to the front end.
type Message struct {
	Kind      string
	Bundle    Bundle
	DisplayID string
	Wait      bool // clear_output: wait for the next output before clearing
}

var (
	mu        sync.Mutex
	publisher func(Message)
)

// SetPublisher installs the function that delivers display messages and
// returns the previous one; nil restores printing to standard output.
func SetPublisher(p func(Message)) (previous func(Message)) {
	mu.Lock()
	defer mu.Unlock()
	previous, publisher = publisher, p
	return previous
}

func publish(m Message) {
	mu.Lock()
	p := publisher
	mu.Unlock()
	if p != nil {
		p(m)
		return
	}
	if m.Kind == KindClear {
		return
	}
	if text, ok := m.Bundle.Data[MIMEPlain].(string); ok {
		fmt.Fprintln(os.Stdout, text)
	}
}

// Handle names one displayed output so it can be updated in place.
type Handle struct {
	ID string
}

// Update replaces the output this handle names.
func (h *Handle) Update(b Bundle) { Update(h.ID, b) }

// MIMEBundle is empty: a handle left as a cell's last expression shows nothing
// more than the output it names.
func (h *Handle) MIMEBundle() map[string]any { return map[string]any{} }

// NewID returns a fresh display id.
func NewID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Show displays a bundle and returns a handle for later updates.
func Show(b Bundle) *Handle {
	h := &Handle{ID: NewID()}
	publish(Message{Kind: KindDisplay, Bundle: withPlain(b), DisplayID: h.ID})
	return h
}

// Update replaces the output displayed under id, wherever it is shown.
func Update(id string, b Bundle) {
	publish(Message{Kind: KindUpdate, Bundle: withPlain(b), DisplayID: id})
}

// Clear clears the cell's output now.
func Clear() { publish(Message{Kind: KindClear}) }

// ClearWait clears the cell's output when the next output arrives, which
// avoids flicker in loops that redraw.
func ClearWait() { publish(Message{Kind: KindClear, Wait: true}) }

// HTML displays HTML.
func HTML(s string) *Handle { return Show(HTMLBundle(s)) }

// Markdown displays Markdown.
func Markdown(s string) *Handle { return Show(MarkdownBundle(s)) }

// Latex displays LaTeX (for example "$T = \alpha + S/\beta$").
func Latex(s string) *Handle { return Show(LatexBundle(s)) }

// SVG displays an SVG document.
func SVG(s string) *Handle { return Show(SVGBundle(s)) }

// PNG displays PNG image bytes.
func PNG(b []byte) *Handle { return Show(PNGBundle(b)) }

// JPEG displays JPEG image bytes.
func JPEG(b []byte) *Handle { return Show(JPEGBundle(b)) }

// JSON displays a value as JSON (a collapsible tree in JupyterLab).
func JSON(v any) *Handle { return Show(JSONBundle(v)) }

// Plain displays text as is.
func Plain(s string) *Handle { return Show(PlainBundle(s)) }

// HTMLBundle returns a bundle holding HTML.
func HTMLBundle(s string) Bundle { return one(MIMEHTML, s) }

// MarkdownBundle returns a bundle holding Markdown.
func MarkdownBundle(s string) Bundle { return one(MIMEMarkdown, s) }

// LatexBundle returns a bundle holding LaTeX.
func LatexBundle(s string) Bundle { return one(MIMELatex, s) }

// SVGBundle returns a bundle holding an SVG image.
func SVGBundle(s string) Bundle { return one(MIMESVG, s) }

// PNGBundle returns a bundle holding a PNG image.
func PNGBundle(b []byte) Bundle { return one(MIMEPNG, base64.StdEncoding.EncodeToString(b)) }

// JPEGBundle returns a bundle holding a JPEG image.
func JPEGBundle(b []byte) Bundle { return one(MIMEJPEG, base64.StdEncoding.EncodeToString(b)) }

// PlainBundle returns a bundle holding plain text.
func PlainBundle(s string) Bundle { return one(MIMEPlain, s) }

// JSONBundle returns a bundle holding v as JSON; a value that cannot be
// encoded is shown as text with the reason.
func JSONBundle(v any) Bundle {
	raw, err := json.Marshal(v)
	if err != nil {
		return PlainBundle(fmt.Sprintf("display: cannot encode %T as JSON: %v", v, err))
	}
	var generic any
	_ = json.Unmarshal(raw, &generic)
	return Bundle{Data: map[string]any{MIMEJSON: generic, MIMEPlain: string(raw)}}
}

func one(mime string, v any) Bundle { return Bundle{Data: map[string]any{mime: v}} }

// withPlain adds a text/plain fallback, which nbformat requires front ends
// to be able to fall back on.
func withPlain(b Bundle) Bundle {
	if b.Data == nil {
		b.Data = map[string]any{}
	}
	if _, ok := b.Data[MIMEPlain]; !ok {
		switch {
		case b.Data[MIMEPNG] != nil || b.Data[MIMEJPEG] != nil || b.Data[MIMESVG] != nil:
			b.Data[MIMEPlain] = "<image>"
		case b.Data[MIMEHTML] != nil:
			b.Data[MIMEPlain] = "<HTML>"
		default:
			for _, k := range []string{MIMEMarkdown, MIMELatex} {
				if s, ok := b.Data[k].(string); ok {
					b.Data[MIMEPlain] = s
					break
				}
			}
		}
	}
	return b
}

// Value renderings a type may offer; display looks for them by method name,
// so packages need not import display to render richly.
type (
	bundler    interface{ MIMEBundle() map[string]any }
	metadataer interface{ MIMEMetadata() map[string]any }
	htmler     interface{ HTML() string }
	svger      interface{ SVG() string }
	pnger      interface{ PNG() ([]byte, error) }
	markdowner interface{ Markdown() string }
)

// BundleOf renders a value as a cell result: its own renderings first, then
// text/plain with fmt's %v (strings as they are, errors by their message).
// A nil value or a bundle-less handle gives an empty bundle: nothing shown.
func BundleOf(v any) Bundle {
	if v == nil {
		return Bundle{}
	}
	if rv := reflect.ValueOf(v); (rv.Kind() == reflect.Pointer || rv.Kind() == reflect.Interface) && rv.IsNil() {
		return PlainBundle("nil")
	}
	b := Bundle{Data: map[string]any{}}
	if r, ok := registered(v); ok {
		if rb, err := r(v); err == nil && !rb.Empty() {
			return withPlain(rb)
		}
	}
	switch r := v.(type) {
	case Bundle:
		return withPlain(r)
	case bundler:
		for k, d := range r.MIMEBundle() {
			b.Data[k] = d
		}
		if len(b.Data) == 0 {
			return Bundle{}
		}
	}
	if r, ok := v.(htmler); ok {
		b.Data[MIMEHTML] = r.HTML()
	}
	if r, ok := v.(svger); ok {
		b.Data[MIMESVG] = r.SVG()
	}
	if r, ok := v.(pnger); ok {
		if img, err := r.PNG(); err == nil {
			b.Data[MIMEPNG] = base64.StdEncoding.EncodeToString(img)
		}
	}
	if r, ok := v.(markdowner); ok {
		b.Data[MIMEMarkdown] = r.Markdown()
	}
	if len(b.Data) == 0 {
		// Structs and slices of structs (a cost, a sweep, parsed rows,
		// samples) show as tables; fmt.Stringer types keep their text
		// unless their fields carry units (then String is the text/plain).
		if _, isStringer := v.(fmt.Stringer); !isStringer || hasUnits(reflect.TypeOf(v)) {
			if tb, ok := structTable(v); ok {
				return tb
			}
			if tb, ok := mapTable(v); ok {
				return tb
			}
			// A list of names reads as words on a page ("ring, tree,
			// dbtree"); text/plain keeps Go's [ring tree dbtree] for
			// consoles, as a Go reader expects.
			if s, ok := listText(v); ok {
				b.Data[MIMEHTML] = html.EscapeString(s)
			}
		}
	}
	if _, ok := b.Data[MIMEPlain]; !ok {
		b.Data[MIMEPlain] = Text(v)
	}
	// Display sizes (a 2x PNG shown at its logical size) travel as
	// metadata, keyed by MIME type as nbformat has it.
	if r, ok := v.(metadataer); ok {
		b.Metadata = r.MIMEMetadata()
	}
	return b
}

// Text is the plain-text form of a value as a cell result shows it: its
// Error or String method, else fmt's %v.
func Text(v any) string {
	switch t := v.(type) {
	case error:
		return t.Error()
	case fmt.Stringer:
		return t.String()
	}
	return fmt.Sprintf("%v", v)
}
