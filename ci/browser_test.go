package ci

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// The browser test drives headless Chromium against a real Jupyter server
// (Debian's classic Notebook) running the commlab kernel, set up only by
// `commlab install` (kernelspec and the widgets' nbextension): it runs
// cells and sees text, an image and a table, sees a widget slider once,
// moves it and sees the plot change, and interrupts an infinite loop from
// the toolbar; any error on the browser console fails it. Screenshots go
// to $COMMLAB_ARTIFACTS (default out/browser).

const chromiumPath = "/usr/bin/chromium"

// browserCells are the notebook the test opens.
var browserCells = []string{
	`fmt.Println("hello from the commlab kernel")`,
	// an image drawn in the cell
	"img := image.NewRGBA(image.Rect(0, 0, 120, 40))\n" +
		"for x := range 120 { for y := range 40 { img.Set(x, y, color.RGBA{uint8(2 * x), 80, 160, 255}) } }\n" +
		"display.Image(img)",
	`display.Table([]string{"collective", "busbw factor"}, [][]string{{"all_reduce", "2(n-1)/n"}, {"all_gather", "(n-1)/n"}})`,
	// a slider whose plot (an image whose width follows n) changes as it moves
	"n := widget.IntSlider(\"n\", 2, 2, 16, 1)\n" +
		"func bar(n int) *image.RGBA {\n\tm := image.NewRGBA(image.Rect(0, 0, 20*n, 30))\n\tfor x := range 20 * n { for y := range 30 { m.Set(x, y, color.RGBA{200, 60, 60, 255}) } }\n\treturn m\n}\n" +
		"widget.Interact(func(n int) { display.Image(bar(n)); fmt.Println(\"ring steps:\", 2*(n-1)) }, n)",
	"spins := 0\nfmt.Println(\"spinning\")\nfor { spins++ }",
	`fmt.Println("after interrupt, spins > 0:", spins > 0)`,
}

// requireClassicNotebook returns Debian's classic Notebook server, or
// skips (fails under COMMLAB_REQUIRE_BROWSER).
func requireClassicNotebook(t *testing.T) (jupyter string) {
	t.Helper()
	requireChromium(t)
	jupyter, err := exec.LookPath("jupyter-notebook")
	if err != nil {
		requireOrSkip(t, "COMMLAB_REQUIRE_BROWSER", "the classic Jupyter Notebook is not installed (apt-get install jupyter-notebook)")
	}
	return jupyter
}

func freePort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func writeNotebook(t *testing.T, path string) {
	cells := make([]map[string]any, len(browserCells))
	for i, src := range browserCells {
		cells[i] = map[string]any{"cell_type": "code", "execution_count": nil, "metadata": map[string]any{}, "outputs": []any{}, "source": src}
	}
	nb := map[string]any{"cells": cells, "nbformat": 4, "nbformat_minor": 5,
		"metadata": map[string]any{"kernelspec": map[string]any{"name": "commlab", "display_name": "Go (commlab)", "language": "go"}}}
	b, _ := json.Marshal(nb)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// classicConsoleNoise: Notebook 6 itself probes for ipywidgets 7's
// extension (main.js, "HARDCODED WIDGETS HACK"); its 404 is not ours.
func classicConsoleNoise(m chromedp.ConsoleMessage) string {
	if strings.Contains(m.URL+m.Text, "/nbextensions/widgets/notebook/js/extension.js") {
		return "Notebook 6 probing for ipywidgets 7"
	}
	return ""
}

func TestBrowserNotebook(t *testing.T) {
	jupyter := requireClassicNotebook(t)
	dir := t.TempDir()
	artifacts := artifactsDir(t)

	// commlab, and what `commlab install` installs: the kernelspec and the
	// widgets' front end (an nbextension). Nothing is copied by hand.
	bin := filepath.Join(dir, "commlab")
	if out, err := exec.Command("go", "build", "-o", bin, module).CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	data, config, notebooks := filepath.Join(dir, "data"), filepath.Join(dir, "config"), filepath.Join(dir, "notebooks")
	// A private HOME: jupyter would also find a commlab kernelspec that `make
	// lab` installed for the user, and could start that binary instead.
	env := append(os.Environ(), "HOME="+dir, "XDG_DATA_HOME="+filepath.Join(dir, "xdg"), "JUPYTER_DATA_DIR="+data, "JUPYTER_CONFIG_DIR="+config, "JUPYTER_PATH=", "PYDEVD_DISABLE_FILE_VALIDATION=1")
	install := exec.Command(bin, "install", "--user")
	install.Env = env
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("install: %v\n%s", err, out)
	}
	if err := os.MkdirAll(notebooks, 0o755); err != nil {
		t.Fatal(err)
	}
	writeNotebook(t, filepath.Join(notebooks, "browser.ipynb"))

	// A real Jupyter server; SIGTERM at the end shuts its kernels down.
	port := freePort(t)
	cmd := exec.Command(jupyter, "--no-browser", "--allow-root", fmt.Sprintf("--port=%d", port), "--ip=127.0.0.1",
		"--NotebookApp.token=", "--NotebookApp.password=", "--notebook-dir="+notebooks)
	cmd.Env = env
	server := startServer(t, "jupyter-server", cmd, artifacts)
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	waitHTTP(t, server, base+"/api/status", 200)

	// Every error the page reports (a model class the front end lacks,
	// a renderer the notebook cannot use) fails the test.
	ctx := newChromium(t, dir, 3*time.Minute)
	p := newPage(t, ctx, artifacts, "", classicConsoleNoise)
	diagnose := `JSON.stringify({widgetsReady: window.commlabWidgetsReady, bundle: typeof window.CommlabWidgets, cells: document.querySelectorAll('.cell').length, kernel: !!(window.Jupyter && Jupyter.notebook && Jupyter.notebook.kernel), errors: window.commlabErrors, readout: (document.querySelector('.widget-readout') || {}).innerText, focused: document.activeElement && document.activeElement.className})`
	waitJS := func(what, cond string) chromedp.Action[chromedp.Void] {
		return p.waitJS(what, cond, diagnose, time.Minute)
	}
	cellOutput := func(i int) string {
		return fmt.Sprintf(`(document.querySelectorAll('.cell')[%d].querySelector('.output_wrapper') || {innerHTML: '', innerText: ''})`, i)
	}
	runCell := func(i int) chromedp.Action[chromedp.Void] {
		return chromedp.Steps(
			p.js(fmt.Sprintf(`Jupyter.notebook.select(%d);`, i)),
			chromedp.Click(chromedp.CSS(`#run_int button[data-jupyter-action="jupyter-notebook:run-cell-and-select-next"]`)),
		)
	}
	var imgBefore, imgAfter string
	imgWidth := func(dst *string) chromedp.Action[chromedp.Void] {
		return p.read(cellOutput(3)+`.querySelector('.widget-output img').naturalWidth.toString()`, dst)
	}
	kernelIdle := waitJS("the kernel to be idle", `Jupyter.notebook && Jupyter.notebook.kernel && Jupyter.notebook.kernel.is_connected() && document.querySelector('#kernel_indicator_icon.kernel_idle_icon') !== null`)

	p.do(
		chromedp.Navigate(base+"/notebooks/browser.ipynb"),
		// The front end is the nbextension `commlab install` installed.
		waitJS("the notebook and the widgets front end", `window.commlabWidgetsReady === true && document.querySelectorAll('.cell').length === 6 && document.querySelector('script[src*="/nbextensions/commlab-widgets/commlab-widgets.js"]') !== null`),
		kernelIdle,
		runCell(0), waitJS("text output", cellOutput(0)+`.innerText.includes('hello from the commlab kernel')`),
		runCell(1), waitJS("an image", cellOutput(1)+`.innerHTML.includes('<img') && `+cellOutput(1)+`.innerHTML.includes('data:image/png')`),
		runCell(2), waitJS("a table", cellOutput(2)+`.innerHTML.includes('<table') && `+cellOutput(2)+`.innerText.includes('all_reduce')`),
		p.shot("1-text-image-table.png"),
		runCell(3), waitJS("the slider and its plot", cellOutput(3)+`.querySelector('.widget-slider') !== null && `+cellOutput(3)+`.innerText.includes('ring steps: 2') && `+cellOutput(3)+`.querySelector('.widget-output img') !== null`),
		// Shown once: one output (the controls and their output area), no
		// text form of the widget.
		waitJS("the widget shown once", cellOutput(3)+`.querySelectorAll(':scope > .output > .output_area').length === 1 && `+cellOutput(3)+`.querySelectorAll('.widget-slider').length === 1 && !`+cellOutput(3)+`.innerText.includes('VBox(')`),
		imgWidth(&imgBefore),
		p.shot("2-widget-before.png"),
		// Move the slider with the keyboard, as a person can.
		chromedp.Focus(chromedp.CSS(`.widget-slider .noUi-handle`)),
		chromedp.KeyEvent(kb.ArrowRight), chromedp.KeyEvent(kb.ArrowRight), chromedp.KeyEvent(kb.ArrowRight),
		waitJS("the plot to change", cellOutput(3)+`.innerText.includes('ring steps: 8')`),
		imgWidth(&imgAfter),
		p.shot("3-widget-after.png"),
		// The loop says it started before the interrupt is clicked, so the
		// interrupt meets the loop, not the cell's compilation.
		runCell(4), waitJS("the loop to be running", cellOutput(4)+`.innerText.includes('spinning') && document.querySelector('#kernel_indicator_icon.kernel_busy_icon') !== null`),
		chromedp.Click(chromedp.CSS(`button[data-jupyter-action="jupyter-notebook:interrupt-kernel"]`)),
		waitJS("the interrupted error", cellOutput(4)+`.innerText.includes('Interrupted')`),
		kernelIdle,
		runCell(5), waitJS("state kept after interrupt", cellOutput(5)+`.innerText.includes('spins > 0: true')`),
		p.shot("4-interrupted.png"),
	)
	p.checkConsole()
	if imgBefore != "40" || imgAfter != "100" {
		t.Errorf("plot width before/after moving the slider = %s/%s px, want 40/100", imgBefore, imgAfter)
	}
	t.Logf("screenshots in %s", artifacts)
}
