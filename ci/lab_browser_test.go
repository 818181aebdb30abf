package ci

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// The JupyterLab 4 and Notebook 7 tests drive headless Chromium against a
// real server of the venv (ci/requirements.txt), the commlab kernel found
// only through `commlab install --sys-prefix`. They open a copy of chapter
// 1, run all its cells and check what a reader sees: no error output,
// widgets drawn and redrawing when a slider moves, a gonum plot. In
// JupyterLab also Go's syntax colours, tab completion of costmodel's
// names, the contextual help (Shift+Tab), interrupt from the toolbar with
// the kernel's state kept, and restart. Any console error that is not the
// front end's own noise fails them. Screenshots go to $COMMLAB_ARTIFACTS.

// chapterNotebook is the notebook the front-end tests open.
const chapterNotebook = "01-collectives.ipynb"

// labHelpers are functions the tests call in the page, through the
// application JupyterLab and Notebook 7 expose with --expose-app-in-browser.
// Conditions read the notebook's model (outputs, execution counts) rather
// than its pixels; what a reader sees is checked in the DOM beside them.
const labHelpers = `window.ct = (() => {
  const app = window.jupyterapp;
  // the notebook's panel: shell.currentWidget follows focus, which a
  // headless window may never give.
  const panel = () => [...app.shell.widgets('main')].find(w => w.sessionContext && w.content && w.content.widgets);
  const nb = () => panel().content;
  const kernel = () => { const s = panel() && panel().sessionContext && panel().sessionContext.session; return s && s.kernel; };
  const cells = () => nb().widgets;
  const code = () => cells().filter(c => c.model.type === 'code');
  const outputs = c => c.model.outputs ? c.model.outputs.toJSON() : [];
  const outText = c => outputs(c).map(o => (o.text || '') + ((o.data && o.data['text/plain']) || '') + (o.evalue || '') + (o.traceback || []).join('\n')).join('\n');
  const find = s => cells().findIndex(c => c.model.sharedModel.getSource().includes(s));
  const statuses = [];
  return {
    app, panel, nb, kernel, cells, outputs, outText, find, statuses,
    ready: () => !!(panel() && panel().content && panel().content.widgets && kernel() && kernel().status === 'idle' && panel().context.isReady),
    running: () => code().some(c => c.model.executionState === 'running'),
    idle: () => !!kernel() && kernel().status === 'idle' && !code().some(c => c.model.executionState === 'running'),
    unexecuted: () => code().filter(c => c.model.executionCount === null).length,
    errors: () => code().flatMap(c => outputs(c).filter(o => o.output_type === 'error').map(o => 'cell ' + cells().indexOf(c) + ': ' + o.ename + ': ' + o.evalue)),
    imageCell: () => cells().findIndex(c => outputs(c).some(o => o.data && (o.data['image/png'] || o.data['image/svg+xml']))),
    mark: (i, name) => { cells()[i].node.setAttribute('data-commlab-test', name); },
    show: async i => { nb().activeCellIndex = i; await nb().scrollToItem(i, 'start'); },
    watchStatus: () => panel().sessionContext.statusChanged.connect((_, s) => statuses.push(s)),
    // newCell appends a code cell with src, its editor focused with the
    // cursor at the end, in edit mode: where a person would be typing.
    at: {},
    newCell: async (src, name) => {
      nb().activeCellIndex = cells().length - 1;
      await app.commands.execute('notebook:insert-cell-below');
      const c = nb().activeCell;
      c.model.sharedModel.setSource(src);
      await nb().scrollToItem(nb().activeCellIndex, 'center');
      await app.commands.execute('notebook:enter-edit-mode');
      c.editor.focus();
      c.editor.setCursorPosition(c.editor.getPositionAt(src.length));
      if (name) ct.at[name] = c;
    },
    run: i => { nb().activeCellIndex = i; app.commands.execute('notebook:run-cell'); },
    diagnose: () => JSON.stringify({kernel: kernel() ? kernel().name + ' ' + kernel().status : 'none', cells: cells().length,
      unexecuted: code().filter(c => c.model.executionCount === null).length, running: code().filter(c => c.model.executionState === 'running').length,
      errors: code().flatMap(c => outputs(c).filter(o => o.output_type === 'error').map(o => o.ename + ': ' + o.evalue)),
      dialog: (document.querySelector('.jp-Dialog') || {}).innerText}),
  };
})(); true`

// labServer is a running Jupyter server of the venv with chapter 1 in its
// root folder.
type labServer struct {
	base, token, root string
	server            *server
}

// startLab starts `command` (jupyter-lab or jupyter-notebook of the venv)
// on a free loopback port with a token, its root a temporary folder
// holding a copy of chapter 1; it stops with the test.
func startLab(t *testing.T, venv, command, artifacts string) *labServer {
	t.Helper()
	dir := t.TempDir()
	home, root := filepath.Join(dir, "home"), filepath.Join(dir, "root")
	copyFile(t, filepath.Join("..", "notebooks", chapterNotebook), filepath.Join(root, chapterNotebook))
	writeQuietLabSettings(t, home)
	tok, port := token(), freePort(t)
	cmd := exec.Command(filepath.Join(venv, "bin", command), "--no-browser", "--allow-root", "--expose-app-in-browser",
		"--ServerApp.ip=127.0.0.1", fmt.Sprintf("--ServerApp.port=%d", port), "--ServerApp.port_retries=0",
		"--IdentityProvider.token="+tok, "--ServerApp.root_dir="+root)
	cmd.Env = jupyterEnv(venv, home)
	cmd.Dir = root
	s := &labServer{base: fmt.Sprintf("http://127.0.0.1:%d", port), token: tok, root: root}
	s.server = startServer(t, command, cmd, artifacts)
	// Runs before startServer's cleanup: the server stopped, its kernels
	// (connection files under home) must have ended with it.
	t.Cleanup(func() {
		if running := kernelProcesses(home); !t.Failed() && len(running) != 1 {
			t.Errorf("%d commlab kernels of %s running before the stop (%v), want the notebook's one", len(running), command, running)
		}
		if err := s.server.stop(2 * time.Minute); err != nil {
			t.Errorf("%s: %v", command, err)
		}
		if err := waitFor("the kernels to end with "+command, 2*time.Minute, func() (bool, error) {
			left := kernelProcesses(home)
			return len(left) == 0, fmt.Errorf("still running: %v", left)
		}); err != nil {
			t.Error(err)
		}
	})
	waitHTTP(t, s.server, s.base+"/api/status?token="+tok, 200)
	return s
}

// writeQuietLabSettings writes the settings of a front end under home that
// keep it from asking for news or updates: the test reaches loopback only,
// and the question would sit over the notebook in every screenshot.
func writeQuietLabSettings(t *testing.T, home string) {
	t.Helper()
	files := map[string]string{
		filepath.Join(home, ".jupyter", "jupyter_server_config.py"):                                                                      "c.LabApp.news_url = None\nc.LabApp.check_for_updates_class = 'jupyterlab.NeverCheckForUpdate'\n",
		filepath.Join(home, ".jupyter", "lab", "user-settings", "@jupyterlab", "apputils-extension", "notification.jupyterlab-settings"): `{"fetchNews": "false", "checkForUpdates": false}`,
	}
	for path, content := range files {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// labConsoleNoise says why a console error is the front end's own and not
// the kernel's or commlab's, or "".
func labConsoleNoise(m chromedp.ConsoleMessage) string {
	text := m.URL + " " + m.Text
	// Notebook 7.6.5's keyboard-shortcuts plugin reads the settings schema
	// of a plugin it was not given, on every page: it throws the same with a
	// Python notebook, and with the widgets' and jupytext's extensions
	// disabled.
	if strings.Contains(text, "/static/notebook/notebook_core.") && strings.Contains(text, "(reading 'schema')") {
		return "Notebook 7's own shortcuts plugin"
	}
	return ""
}

// runChapter opens chapter 1, runs all cells and checks that each ran
// without an error output; it returns the page.
func runChapter(t *testing.T, p *page, url string) {
	t.Helper()
	p.do(
		chromedp.Navigate(url),
		p.waitJS("the application", `!!window.jupyterapp && !!window.jupyterapp.shell && [...window.jupyterapp.shell.widgets('main')].some(w => w.sessionContext && w.content && w.content.widgets)`,
			`JSON.stringify({url: location.href, app: !!window.jupyterapp, title: document.title, body: document.body.innerText.slice(0, 400)})`, 3*time.Minute),
		p.js(labHelpers),
		p.waitJS("the commlab kernel to be idle", `ct.ready() && ct.kernel().name === 'commlab'`, `ct.diagnose()`, 3*time.Minute),
		p.js(`ct.app.commands.execute('notebook:run-all-cells');`),
		p.waitJS("every cell of chapter 1 to run", `ct.idle() && (ct.unexecuted() === 0 || ct.errors().length > 0)`, `ct.diagnose()`, 5*time.Minute),
		p.shot("1-run-all.png"),
	)
	var errs string
	p.do(p.read(`ct.errors().join('\n')`, &errs))
	if errs != "" {
		t.Fatalf("%serror outputs after running chapter 1:\n%s", p.prefix, errs)
	}
	var unexecuted string
	p.do(p.read(`String(ct.unexecuted())`, &unexecuted))
	if unexecuted != "0" {
		t.Fatalf("%s%s code cells of chapter 1 did not run", p.prefix, unexecuted)
	}
}

// runChapterAgain is what a reader does next: change a parameter in the
// cell tagged parameters (the large message, 1GB -> 4GB) and Run All again
// in the same kernel. Every code cell must run again, none with an error
// output, and the answer must follow the new value in the reader's units.
func runChapterAgain(t *testing.T, p *page) {
	t.Helper()
	const codeCells = `ct.cells().filter(c => c.model.type === 'code')`
	var before, edited string
	p.do(
		p.read(`String(Math.max(...`+codeCells+`.map(c => c.model.executionCount || 0)))`, &before),
		p.js(`const c = ct.cells().find(c => (c.model.getMetadata('tags') || []).includes('parameters'));
			c.model.sharedModel.setSource(c.model.sharedModel.getSource().replace('bigSize := "1GB"', 'bigSize := "4GB"'));`),
		p.read(`ct.cells().find(c => (c.model.getMetadata('tags') || []).includes('parameters')).model.sharedModel.getSource()`, &edited),
	)
	if !strings.Contains(edited, `bigSize := "4GB"`) {
		t.Fatalf("%sthe parameters cell was not edited: %q", p.prefix, edited)
	}
	p.do(
		p.js(`ct.app.commands.execute('notebook:run-all-cells');`),
		p.waitJS("every cell of chapter 1 to run again", `ct.idle() && (`+codeCells+`.every(c => (c.model.executionCount || 0) > `+before+`) || ct.errors().length > 0)`, `ct.diagnose()`, 5*time.Minute),
		p.shot("5-run-all-again.png"),
	)
	var errs string
	p.do(p.read(`ct.errors().join('\n')`, &errs))
	if errs != "" {
		t.Fatalf("%serror outputs after running chapter 1 again with bigSize 4GB:\n%s", p.prefix, errs)
	}
	var all string
	p.do(p.read(codeCells+`.map(c => ct.outText(c)).join('\n')`, &all))
	if !strings.Contains(all, "4 GB") {
		t.Errorf("%sno output names the new size \"4 GB\" after the second run", p.prefix)
	}
}

// checkWidgetAndPlot checks that the chapter's interactive cell shows its
// controls once, that moving the GPUs slider with the mouse redraws its
// output, and that a gonum plot shows as an image.
func checkWidgetAndPlot(t *testing.T, p *page) {
	t.Helper()
	interact := `ct.cells()[ct.find('widget.Interact(')]`
	var before, after string
	p.do(
		p.js(`const i = ct.find('widget.Interact('); ct.mark(i, 'interact'); await ct.show(i);`),
		p.waitJS("the sliders of the interactive cell", interact+`.node.querySelectorAll('.widget-slider .noUi-handle').length === 4 && `+interact+`.node.querySelector('.widget-dropdown select') !== null && `+interact+`.node.innerText.includes('over 8 GPUs')`,
			`ct.outText(`+interact+`).slice(0, 300) + ' | DOM: ' + `+interact+`.node.innerText.slice(0, 300)`, time.Minute),
		// Shown once: no text form of the controls beside them.
		p.waitJS("the controls shown once, not as text", `!`+interact+`.node.innerText.includes('VBox(') && `+interact+`.outputArea.node.querySelectorAll(':scope > .jp-OutputArea-child').length === 1`,
			interact+`.node.innerText.slice(0, 400)`, time.Minute),
		p.read(interact+`.node.querySelector('.widget-output, .jupyter-widgets-output-area').innerText`, &before),
		p.shot("2-widget-before.png"),
		// A click on the GPUs slider's track, a quarter of the way along,
		// as a person moves it; the output must follow the new value. The
		// slider goes to the middle of the window first: a long cell leaves
		// it below the fold, where a click at its coordinates hits nothing.
		p.js(``+interact+`.node.querySelector('.widget-slider .noUi-target').scrollIntoView({block: 'center'}); await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));`),
		chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			rect, err := chromedp.Evaluate[[]float64](`(() => { const r = `+interact+`.node.querySelector('.widget-slider .noUi-target').getBoundingClientRect(); return [r.left + r.width / 4, r.top + r.height / 2]; })()`)(ctx, tg)
			if err != nil {
				return err
			}
			_, err = chromedp.MouseClickXY(rect[0], rect[1])(ctx, tg)
			return err
		}),
		p.waitJS("the output to redraw for the slider's new value", `(() => { const v = `+interact+`.node.querySelector('.widget-slider .widget-readout').innerText.trim();
			return v !== '8' && `+interact+`.node.innerText.includes('over ' + v + ' GPUs'); })()`, interact+`.node.innerText.slice(0, 400)`, time.Minute),
		p.read(interact+`.node.querySelector('.widget-output, .jupyter-widgets-output-area').innerText`, &after),
		p.shot("3-widget-after.png"),
	)
	if before == after || strings.Contains(after, "over 8 GPUs") {
		t.Errorf("%sthe interactive output did not change with the slider: before %q, after %q", p.prefix, before, after)
	}
	plot := `ct.cells()[ct.imageCell()]`
	p.do(
		p.waitJS("a cell with a plot", `ct.imageCell() >= 0`, `ct.diagnose()`, time.Minute),
		p.js(`await ct.show(ct.imageCell());`),
		p.waitJS("the plot drawn", `(() => { const img = `+plot+`.node.querySelector('.jp-OutputArea-output img'); const svg = `+plot+`.node.querySelector('.jp-OutputArea-output svg');
			return (img !== null && img.complete && img.naturalWidth >= 200) || (svg !== null && svg.getBoundingClientRect().width >= 200); })()`,
			plot+`.node.querySelector('.jp-OutputArea').innerHTML.slice(0, 300)`, time.Minute),
		p.shot("4-plot.png"),
	)
}

func TestBrowserJupyterLab(t *testing.T) {
	venv := requireVenv(t, "jupyterlab", "jupyterlab_widgets", "ipywidgets")
	requireChromium(t)
	installInVenv(t, venv)
	artifacts := artifactsDir(t)
	lab := startLab(t, venv, "jupyter-lab", artifacts)
	ctx := newChromium(t, t.TempDir(), 10*time.Minute)
	p := newPage(t, ctx, artifacts, "lab-", labConsoleNoise)
	runChapter(t, p, lab.base+"/lab/tree/"+chapterNotebook+"?token="+lab.token)
	checkWidgetAndPlot(t, p)
	runChapterAgain(t, p)

	// Go's syntax colours: the kernel's language_info (text/x-go,
	// codemirror_mode go) gives the editor a language JupyterLab knows, and
	// a keyword is drawn in another colour than the text around it.
	interact := `ct.cells()[ct.find('widget.Interact(')]`
	var mime string
	p.do(
		p.read(interact+`.model.mimeType`, &mime),
		p.js(`await ct.show(ct.find('widget.Interact('));`),
		p.waitJS("Go keywords highlighted", `(() => { const spans = [...`+interact+`.node.querySelectorAll('.cm-content .cm-line span')];
			const kw = spans.find(s => ['func', 'return', 'if'].includes(s.textContent));
			return !!kw && getComputedStyle(kw).color !== getComputedStyle(kw.closest('.cm-line')).color; })()`,
			interact+`.node.querySelector('.cm-content').innerHTML.slice(0, 400)`, time.Minute),
	)
	if mime != "text/x-go" {
		t.Errorf("the editor's language is %q, want text/x-go from the kernel's language_info", mime)
	}

	// Tab completion offers costmodel's names.
	p.do(
		p.js(`await ct.newCell('costmodel.Cro');`),
		chromedp.KeyEvent(kb.Tab),
		p.waitJS("completions from costmodel", `(() => { const c = document.querySelector('.jp-Completer'); return !!c && !c.classList.contains('lm-mod-hidden') && c.innerText.includes('Crossover'); })()`,
			`(document.querySelector('.jp-Completer') || {innerText: 'no completer'}).innerText`, time.Minute),
		p.shot("5-completion.png"),
		chromedp.KeyEvent(kb.Escape),
	)

	// The contextual help (Shift+Tab) shows a documentation string: go doc's
	// for the standard library, the signature for costmodel's functions.
	shiftTab := chromedp.KeyEvent(kb.Tab, chromedp.KeyModifiers(chromedp.ModifierShift))
	tooltip := `(document.querySelector('.jp-Tooltip') || {innerText: ''}).innerText`
	p.do(
		p.js(`await ct.newCell('strings.Fields');`), shiftTab,
		p.waitJS("the help for strings.Fields", tooltip+`.includes('Fields splits the string')`, tooltip, time.Minute),
		p.shot("6-help.png"),
		chromedp.KeyEvent(kb.Escape),
		p.js(`await ct.newCell('costmodel.Crossover');`), shiftTab,
		p.waitJS("the help for costmodel.Crossover", tooltip+`.includes('func costmodel.Crossover(')`, tooltip, time.Minute),
		chromedp.KeyEvent(kb.Escape),
	)

	// Interrupt from the toolbar stops an endless loop; the kernel keeps
	// the loop's variable and the chapter's.
	p.do(
		// The loop says it started before the interrupt is clicked, so the
		// interrupt meets the loop, not the cell's compilation.
		p.js(`await ct.newCell('spins := 0\nfmt.Println("spinning")\nfor {\n\tspins++\n}', 'spin'); ct.run(ct.nb().activeCellIndex);`),
		p.waitJS("the loop to run", `ct.running() && ct.kernel().status === 'busy' && ct.outText(ct.at.spin).includes('spinning')`, `ct.diagnose()`, time.Minute),
		chromedp.Click(chromedp.CSS(`.jp-NotebookPanel-toolbar [data-jp-item-name="interrupt"]`)),
		p.waitJS("the loop to stop", `ct.idle() && ct.outText(ct.at.spin).includes('interrupted')`, `ct.diagnose()`, time.Minute),
		p.js(`await ct.newCell('fmt.Println("spins > 0:", spins > 0, "n =", n)', 'check'); ct.run(ct.nb().activeCellIndex);`),
		p.waitJS("the state kept", `ct.idle() && ct.outText(ct.at.check).includes('spins > 0: true n = 8')`, `ct.outText(ct.at.check) + ' ' + ct.diagnose()`, time.Minute),
		p.shot("7-interrupted.png"),
	)

	// Restart from the toolbar: a fresh kernel, without the old state.
	p.do(
		p.js(`ct.watchStatus();`),
		chromedp.Click(chromedp.CSS(`.jp-NotebookPanel-toolbar [data-jp-item-name="restart"]`)),
		p.waitJS("the restart dialog", `!!document.querySelector('.jp-Dialog .jp-mod-accept')`, `ct.diagnose()`, time.Minute),
		chromedp.Click(chromedp.CSS(`.jp-Dialog .jp-mod-accept`)),
		p.waitJS("the kernel restarted", `ct.statuses.includes('restarting') && ct.idle()`, `JSON.stringify(ct.statuses) + ' ' + ct.diagnose()`, 2*time.Minute),
		p.js(`await ct.newCell('fmt.Println("fresh kernel"); fmt.Println(spins)', 'fresh'); ct.run(ct.nb().activeCellIndex);`),
		p.waitJS("a cell to run after the restart", `ct.idle() && ct.at.fresh.model.executionCount !== null`, `ct.diagnose()`, time.Minute),
		p.shot("8-restarted.png"),
	)
	var fresh, count string
	p.do(p.read(`ct.outText(ct.at.fresh)`, &fresh), p.read(`String(ct.at.fresh.model.executionCount)`, &count))
	if !strings.Contains(fresh, "undefined: spins") || count != "1" {
		t.Errorf("after restart, a cell using spins ran as execution %s and showed %q; want execution 1 and \"undefined: spins\"", count, fresh)
	}
	p.checkConsole()
}

func TestBrowserNotebook7(t *testing.T) {
	venv := requireVenv(t, "notebook", "jupyterlab_widgets", "ipywidgets")
	requireChromium(t)
	installInVenv(t, venv)
	artifacts := artifactsDir(t)
	nb := startLab(t, venv, "jupyter-notebook", artifacts)
	ctx := newChromium(t, t.TempDir(), 10*time.Minute)
	p := newPage(t, ctx, artifacts, "nb7-", labConsoleNoise)
	runChapter(t, p, nb.base+"/notebooks/"+chapterNotebook+"?token="+nb.token)
	checkWidgetAndPlot(t, p)
	p.checkConsole()
}
