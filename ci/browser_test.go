package ci

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
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
	"spins := 0\nfor { spins++ }",
	`fmt.Println("after interrupt, spins > 0:", spins > 0)`,
}

func requireBrowserTools(t *testing.T) (jupyter string) {
	t.Helper()
	fail := func(msg string) {
		if os.Getenv("COMMLAB_REQUIRE_BROWSER") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	if _, err := os.Stat(chromiumPath); err != nil {
		fail("chromium not installed (apt-get install chromium)")
	}
	jupyter, err := exec.LookPath("jupyter-notebook")
	if err != nil {
		fail("the classic Jupyter Notebook is not installed (apt-get install jupyter-notebook)")
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

func TestBrowserNotebook(t *testing.T) {
	jupyter := requireBrowserTools(t)
	dir := t.TempDir()
	artifacts := os.Getenv("COMMLAB_ARTIFACTS")
	if artifacts == "" {
		artifacts = filepath.Join("..", "out", "browser")
	}
	if err := os.MkdirAll(artifacts, 0o755); err != nil {
		t.Fatal(err)
	}

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

	// A real Jupyter server.
	port := freePort(t)
	server := exec.Command(jupyter, "--no-browser", "--allow-root", fmt.Sprintf("--port=%d", port), "--ip=127.0.0.1",
		"--NotebookApp.token=", "--NotebookApp.password=", "--notebook-dir="+notebooks)
	server.Env = env
	logFile, _ := os.Create(filepath.Join(artifacts, "jupyter-server.log"))
	defer logFile.Close()
	server.Stdout, server.Stderr = logFile, logFile
	if err := server.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		// Let the server shut its kernels down; kill it only if it hangs.
		_ = server.Process.Signal(os.Interrupt)
		_ = server.Process.Signal(os.Interrupt) // the notebook asks to confirm the first ^C
		done := make(chan struct{})
		go func() { server.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			server.Process.Kill()
			<-done
		}
	}()
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(base + "/api/status")
		if err == nil {
			resp.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("jupyter server did not start: %v", err)
		}
		time.Sleep(200 * time.Millisecond)
	}

	// Headless Chromium, flags as this machine needs them.
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromiumPath), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(filepath.Join(dir, "chromium")), chromedp.WindowSize(1280, 1400))
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(allocCtx, chromedp.WithLogf(t.Logf))
	defer cancel()
	ctx, cancelTimeout := context.WithTimeout(ctx, 3*time.Minute)
	defer cancelTimeout()
	// Every error the page reports (a model class the front end lacks,
	// a renderer the notebook cannot use) fails the test.
	var consoleMu sync.Mutex
	var consoleErrors []string
	// Console starts the browser and subscribes before it returns; only
	// the reading runs beside the actions (two first uses of ctx at once
	// would start two browsers).
	messages := chromedp.Console(ctx)
	go func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			// Notebook 6 itself probes for ipywidgets 7's extension
			// (main.js, "HARDCODED WIDGETS HACK"); its 404 is not ours.
			if strings.Contains(m.URL+m.Text, "/nbextensions/widgets/notebook/js/extension.js") {
				continue
			}
			if m.Type == chromedp.ConsoleError || m.IsException() {
				consoleMu.Lock()
				consoleErrors = append(consoleErrors, m.String())
				consoleMu.Unlock()
			}
		}
	}()

	shot := func(name string) chromedp.Action[chromedp.Void] {
		return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			buf, err := chromedp.FullScreenshot(100)(ctx, tg)
			if err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(artifacts, name), buf, 0o644)
		})
	}
	// waitJS polls a JavaScript condition.
	waitJS := func(what, cond string) chromedp.Action[chromedp.Void] {
		return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			start := time.Now()
			stepDeadline := start.Add(60 * time.Second)
			for {
				if ok, err := chromedp.Evaluate[bool](cond)(ctx, tg); err == nil && ok {
					t.Logf("browser: %s after %v", what, time.Since(start).Round(time.Millisecond))
					return nil
				}
				select {
				case <-ctx.Done():
					return fmt.Errorf("waiting for %s: %w", what, ctx.Err())
				case <-time.After(100 * time.Millisecond):
				}
				if time.Now().After(stepDeadline) {
					diag, _ := chromedp.Evaluate[string](`JSON.stringify({widgetsReady: window.commlabWidgetsReady, bundle: typeof window.CommlabWidgets, cells: document.querySelectorAll('.cell').length, kernel: !!(window.Jupyter && Jupyter.notebook && Jupyter.notebook.kernel), errors: window.commlabErrors, readout: (document.querySelector('.widget-readout') || {}).innerText, focused: document.activeElement && document.activeElement.className})`)(ctx, tg)
					return fmt.Errorf("waiting for %s: not true after 60s; page state %s", what, diag)
				}
			}
		})
	}
	cellOutput := func(i int) string {
		return fmt.Sprintf(`(document.querySelectorAll('.cell')[%d].querySelector('.output_wrapper') || {innerHTML: '', innerText: ''})`, i)
	}
	runCell := func(i int) chromedp.Action[chromedp.Void] {
		return chromedp.Steps(
			chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
				_, err := chromedp.Evaluate[bool](fmt.Sprintf(`Jupyter.notebook.select(%d); true`, i))(ctx, tg)
				return err
			}),
			chromedp.Click(chromedp.CSS(`#run_int button[data-jupyter-action="jupyter-notebook:run-cell-and-select-next"]`)),
		)
	}
	imgWidth := func(dst *string) chromedp.Action[chromedp.Void] {
		return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			v, err := chromedp.Evaluate[string](cellOutput(3)+`.querySelector('.widget-output img').naturalWidth.toString()`)(ctx, tg)
			*dst = v
			return err
		})
	}
	kernelIdle := waitJS("the kernel to be idle", `Jupyter.notebook && Jupyter.notebook.kernel && Jupyter.notebook.kernel.is_connected() && document.querySelector('#kernel_indicator_icon.kernel_idle_icon') !== null`)

	var imgBefore, imgAfter string
	err := chromedp.Do(ctx,
		chromedp.Navigate(base+"/notebooks/browser.ipynb"),
		// The front end is the nbextension `commlab install` installed.
		waitJS("the notebook and the widgets front end", `window.commlabWidgetsReady === true && document.querySelectorAll('.cell').length === 6 && document.querySelector('script[src*="/nbextensions/commlab-widgets/commlab-widgets.js"]') !== null`),
		kernelIdle,
		runCell(0), waitJS("text output", cellOutput(0)+`.innerText.includes('hello from the commlab kernel')`),
		runCell(1), waitJS("an image", cellOutput(1)+`.innerHTML.includes('<img') && `+cellOutput(1)+`.innerHTML.includes('data:image/png')`),
		runCell(2), waitJS("a table", cellOutput(2)+`.innerHTML.includes('<table') && `+cellOutput(2)+`.innerText.includes('all_reduce')`),
		shot("1-text-image-table.png"),
		runCell(3), waitJS("the slider and its plot", cellOutput(3)+`.querySelector('.widget-slider') !== null && `+cellOutput(3)+`.innerText.includes('ring steps: 2') && `+cellOutput(3)+`.querySelector('.widget-output img') !== null`),
		// Shown once: one output (the controls and their output area), no
		// text form of the widget.
		waitJS("the widget shown once", cellOutput(3)+`.querySelectorAll(':scope > .output > .output_area').length === 1 && `+cellOutput(3)+`.querySelectorAll('.widget-slider').length === 1 && !`+cellOutput(3)+`.innerText.includes('VBox(')`),
		imgWidth(&imgBefore),
		shot("2-widget-before.png"),
		// Move the slider with the keyboard, as a person can.
		chromedp.Focus(chromedp.CSS(`.widget-slider .noUi-handle`)),
		chromedp.KeyEvent(kb.ArrowRight), chromedp.KeyEvent(kb.ArrowRight), chromedp.KeyEvent(kb.ArrowRight),
		waitJS("the plot to change", cellOutput(3)+`.innerText.includes('ring steps: 8')`),
		imgWidth(&imgAfter),
		shot("3-widget-after.png"),
		runCell(4), waitJS("the loop to be running", `document.querySelector('#kernel_indicator_icon.kernel_busy_icon') !== null`),
		chromedp.Sleep(500*time.Millisecond),
		chromedp.Click(chromedp.CSS(`button[data-jupyter-action="jupyter-notebook:interrupt-kernel"]`)),
		waitJS("the interrupted error", cellOutput(4)+`.innerText.includes('Interrupted')`),
		kernelIdle,
		runCell(5), waitJS("state kept after interrupt", cellOutput(5)+`.innerText.includes('spins > 0: true')`),
		shot("4-interrupted.png"),
	)
	if err != nil {
		// Said at once: chromedp can panic while it tears a failed run down.
		fmt.Fprintf(os.Stderr, "browser: %v\n", err)
		_ = chromedp.Do(ctx, shot("failure.png"))
		t.Fatalf("browser: %v (screenshots and server log in %s)", err, artifacts)
	}
	consoleMu.Lock()
	for _, e := range consoleErrors {
		t.Errorf("browser console: %s", e)
	}
	consoleMu.Unlock()
	if imgBefore != "40" || imgAfter != "100" {
		t.Errorf("plot width before/after moving the slider = %s/%s px, want 40/100", imgBefore, imgAfter)
	}
	t.Logf("screenshots in %s", artifacts)
}
