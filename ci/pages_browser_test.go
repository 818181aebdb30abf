package ci

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// pageChecks runs in a page and reports what a reader would trip over:
// the navigation links, a text cell aligned right, a pre that wraps
// instead of scrolling or printed sentences that do not wrap, a number and its unit on two lines, a page wider
// than the window. The number pattern is notebook/export's numberCell.
const pageChecks = `(() => {
  const num = /^[~≈<>≤≥]?\s*[-+−±]?(\d{1,3}(,\d{3})+|\d+)(\.\d+)?([eE][-+]?\d+)?(\/\d+)?\s*([%x×]|[A-Za-zµμ]{1,5}(\/s)?)?(\s*\([^()]*\))?$/;
  const placeholder = /^(|n\/a|na|-|—|–|\?|none|not run|n\.a\.)$/i;
  const out = {nav: {}, rightText: [], wrappingPre: [], unwrappedProse: [], splitUnits: [], overflow: 0, cells: 0, pres: 0, units: 0};
  for (const where of ["top", "bottom"]) {
    const nav = document.querySelector("nav.pages." + where);
    if (!nav) continue;
    for (const cls of ["prev", "index", "next"]) {
      const a = nav.querySelector("a." + cls);
      out.nav[where + "." + cls] = a ? a.getAttribute("href") : "";
    }
  }
  // Body cells: a header sits over its column and aligns with it.
  for (const cell of document.querySelectorAll("td")) {
    out.cells++;
    const text = cell.textContent.replace(/\u00a0/g, " ").trim();
    const align = getComputedStyle(cell).textAlign;
    if ((align === "right" || align === "end") && !num.test(text) && !placeholder.test(text)) {
      out.rightText.push(text.slice(0, 60));
    }
  }
  // Printed sentences (class prose: no line in columns) may wrap; every
  // other pre keeps its lines and scrolls.
  const columns = /\S( {2,}|\t)\S|\||[\u2500-\u257F]/;
  for (const pre of document.querySelectorAll("pre")) {
    out.pres++;
    const s = getComputedStyle(pre);
    if (pre.classList.contains("prose")) {
      if (columns.test(pre.textContent)) out.wrappingPre.push("columns marked prose: " + pre.textContent.slice(0, 60));
      if (s.whiteSpace !== "pre-wrap") out.unwrappedProse.push(pre.textContent.slice(0, 60));
      continue;
    }
    let scrolls = s.overflowX === "auto" || s.overflowX === "scroll";
    for (let p = pre.parentElement; !scrolls && p; p = p.parentElement) {
      const o = getComputedStyle(p).overflowX;
      scrolls = o === "auto" || o === "scroll";
    }
    if (s.whiteSpace !== "pre" || !scrolls) out.wrappingPre.push(pre.textContent.slice(0, 60));
  }
  const unit = /\d[ \u00a0](KiB|MiB|GiB|TiB|KB|MB|GB|TB|B\/s|GB\/s|MB\/s|Gb\/s|µs|us|ms|ns|s|B|x|%|GPUs?|ranks?)\b/g;
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT, {acceptNode(n) {
    for (let p = n.parentElement; p; p = p.parentElement) {
      if (/^(PRE|CODE|SCRIPT|STYLE|SVG|TEXTAREA)$/i.test(p.tagName)) return NodeFilter.FILTER_REJECT;
    }
    return NodeFilter.FILTER_ACCEPT;
  }});
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    for (const m of n.data.matchAll(unit)) {
      out.units++;
      const r = document.createRange();
      r.setStart(n, m.index);
      r.setEnd(n, m.index + m[0].length);
      const tops = new Set([...r.getClientRects()].filter(q => q.width > 0).map(q => Math.round(q.top)));
      if (tops.size > 1) out.splitUnits.push(n.data.slice(Math.max(0, m.index - 20), m.index + m[0].length + 5));
    }
  }
  out.overflow = document.documentElement.scrollWidth - window.innerWidth;
  return JSON.stringify(out);
})()`

type pageReport struct {
	Nav         map[string]string `json:"nav"`
	RightText   []string          `json:"rightText"`
	WrappingPre []string          `json:"wrappingPre"`
	// UnwrappedProse are printed sentences the page's style does not wrap.
	UnwrappedProse []string `json:"unwrappedProse"`
	SplitUnits     []string `json:"splitUnits"`
	Overflow       float64  `json:"overflow"`
	Cells          int      `json:"cells"`
	Pres           int      `json:"pres"`
	Units          int      `json:"units"`
}

// TestPagesInBrowser renders every chapter page, the index and the
// doctor's report (recorded 2x H200) in headless Chromium at a laptop's
// widths, checks what pageChecks reports, and saves screenshots down each
// page to $COMMLAB_ARTIFACTS/pages for a person to look at. With
// COMMLAB_PAGES=DIR it checks the pages already in DIR (a make lab out/)
// instead of running the chapters.
func TestPagesInBrowser(t *testing.T) {
	if _, err := os.Stat(chromiumPath); err != nil {
		if os.Getenv("COMMLAB_REQUIRE_BROWSER") != "" {
			t.Fatal("chromium not installed (apt-get install chromium)")
		}
		t.Skip("chromium not installed (apt-get install chromium)")
	}
	artifacts := os.Getenv("COMMLAB_ARTIFACTS")
	if artifacts == "" {
		artifacts = filepath.Join("..", "out", "browser")
	}
	shots := filepath.Join(artifacts, "pages")
	if err := os.MkdirAll(shots, 0o755); err != nil {
		t.Fatal(err)
	}
	dir := os.Getenv("COMMLAB_PAGES")
	if dir == "" {
		dir = buildPages(t)
	}
	pages, _ := filepath.Glob(filepath.Join(dir, "*.html"))
	reports, _ := filepath.Glob(filepath.Join(dir, "doctor", "*.html"))
	pages = append(pages, reports...)
	sort.Strings(pages)
	if len(pages) < 3 {
		t.Fatalf("only %d pages in %s", len(pages), dir)
	}
	var chaptersInOrder []string
	for _, p := range pages {
		if b := filepath.Base(p); len(b) > 3 && b[2] == '-' && filepath.Dir(p) == filepath.Clean(dir) {
			chaptersInOrder = append(chaptersInOrder, b)
		}
	}

	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(chromiumPath), chromedp.NoSandbox, chromedp.Flag("allow-file-access-from-files", true))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancel = context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()

	for _, width := range []int64{1400, 1280} {
		for _, page := range pages {
			abs, _ := filepath.Abs(page)
			name := strings.TrimSuffix(filepath.Base(page), ".html")
			if filepath.Base(filepath.Dir(page)) == "doctor" {
				name = "doctor-" + name
			}
			t.Run(fmt.Sprintf("%s@%d", name, width), func(t *testing.T) {
				if err := chromedp.Do(ctx, chromedp.EmulateViewport(width, 900), chromedp.Navigate("file://"+abs)); err != nil {
					t.Fatal(err)
				}
				raw, err := chromedp.Run(ctx, chromedp.Evaluate[string](pageChecks))
				if err != nil {
					t.Fatal(err)
				}
				height, err := chromedp.Run(ctx, chromedp.Evaluate[int64](`document.documentElement.scrollHeight`))
				if err != nil {
					t.Fatal(err)
				}
				var r pageReport
				if err := json.Unmarshal([]byte(raw), &r); err != nil {
					t.Fatal(err)
				}
				if len(r.RightText) > 0 {
					t.Errorf("text cells aligned right: %q", r.RightText)
				}
				if len(r.WrappingPre) > 0 {
					t.Errorf("preformatted text that wraps instead of scrolling: %q", r.WrappingPre)
				}
				if len(r.UnwrappedProse) > 0 {
					t.Errorf("printed sentences that run off the page instead of wrapping: %q", r.UnwrappedProse)
				}
				if len(r.SplitUnits) > 0 {
					t.Errorf("numbers split from their units at a line end: %q", r.SplitUnits)
				}
				if r.Overflow > 0 {
					t.Errorf("the page is %v px wider than a %d px window", r.Overflow, width)
				}
				if i := indexOf(chaptersInOrder, filepath.Base(page)); i >= 0 {
					for _, where := range []string{"top", "bottom"} {
						if r.Nav[where+".index"] != "index.html" {
							t.Errorf("%s navigation has no link to the index: %v", where, r.Nav)
						}
						if i > 0 && r.Nav[where+".prev"] != chaptersInOrder[i-1] {
							t.Errorf("%s navigation: previous %q, want %q", where, r.Nav[where+".prev"], chaptersInOrder[i-1])
						}
						if i+1 < len(chaptersInOrder) && r.Nav[where+".next"] != chaptersInOrder[i+1] {
							t.Errorf("%s navigation: next %q, want %q", where, r.Nav[where+".next"], chaptersInOrder[i+1])
						}
					}
				}
				// Screenshots down the page, one window at a time.
				for k, y := 0, int64(0); y < height && k < 60; k, y = k+1, y+850 {
					if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](fmt.Sprintf("window.scrollTo(0, %d); true", y))); err != nil {
						t.Fatal(err)
					}
					png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
					if err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(filepath.Join(shots, fmt.Sprintf("%s-%d-%02d.png", name, width, k)), png, 0o644); err != nil {
						t.Fatal(err)
					}
				}
			})
		}
	}
}

// buildPages runs every chapter on its recorded runs into a folder, with
// the index, and the doctor's report of the recorded 2x H200 machine into
// its doctor/ subfolder, through the commlab binary as a user would.
func buildPages(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	bin := filepath.Join(dir, "commlab")
	if out, err := exec.Command("go", "build", "-o", bin, module).CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	chapters, _ := filepath.Glob(filepath.Join("..", "chapters", "*.md"))
	out := filepath.Join(dir, "out")
	args := append([]string{"run", "--out", out, "--html"}, chapters...)
	if b, err := exec.Command(bin, args...).CombinedOutput(); err != nil {
		t.Fatalf("commlab run: %v\n%s", err, b)
	}
	if b, err := exec.Command(bin, "doctor", "--recorded", "h200x2", "--out", filepath.Join(out, "doctor")).CombinedOutput(); err != nil {
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() > 2 {
			t.Fatalf("commlab doctor: %v\n%s", err, b)
		}
	}
	return out
}

func indexOf(list []string, s string) int {
	for i, v := range list {
		if v == s {
			return i
		}
	}
	return -1
}
