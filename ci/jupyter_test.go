package ci

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// What the front-end tests share: the virtual environment of
// ci/requirements.txt (made by `make venv`), commlab registered in it with
// `commlab install --sys-prefix`, Jupyter servers started on loopback and
// stopped with their kernels, and the kernels' processes.

// requireOrSkip skips the test with reason, or fails it when variable is
// set (CI sets COMMLAB_REQUIRE_JUPYTER and COMMLAB_REQUIRE_BROWSER: a
// missing tool there is a broken set-up, not a reason to pass).
func requireOrSkip(t *testing.T, variable, reason string) {
	t.Helper()
	if os.Getenv(variable) != "" {
		t.Fatalf("%s (%s is set, so this fails instead of skipping)", reason, variable)
	}
	t.Skip(reason)
}

// venvDir is $COMMLAB_VENV, else the repository's .venv.
func venvDir() string {
	if d := os.Getenv("COMMLAB_VENV"); d != "" {
		return d
	}
	d, _ := filepath.Abs(filepath.Join("..", ".venv"))
	return d
}

// checkVenv says what is wrong with the virtual environment at dir for
// the Python modules given, naming the fix; "" when nothing is.
func checkVenv(dir string, modules ...string) string {
	python := filepath.Join(dir, "bin", "python")
	if _, err := os.Stat(dir); err != nil {
		return fmt.Sprintf("no virtual environment at %s: `make venv` makes it from ci/requirements.txt (or set COMMLAB_VENV to one)", dir)
	}
	// Each module is looked up without importing it: a few ms each.
	probe := "import importlib.util, sys; print(' '.join(m for m in sys.argv[1:] if importlib.util.find_spec(m) is None))"
	out, err := exec.Command(python, append([]string{"-c", probe}, modules...)...).CombinedOutput()
	if err != nil {
		if said := bytes.TrimSpace(out); len(said) > 0 {
			err = fmt.Errorf("%w: %s", err, said)
		}
		return fmt.Sprintf("the virtual environment at %s is broken: %s does not run (%v); `make venv` makes it anew", dir, python, err)
	}
	if missing := strings.TrimSpace(string(out)); missing != "" {
		return fmt.Sprintf("the virtual environment at %s lacks %s: `make venv` installs ci/requirements.txt into it", dir, missing)
	}
	return ""
}

// requireVenv returns the virtual environment, skipping the test (or
// failing it under COMMLAB_REQUIRE_JUPYTER) when it is absent, broken or
// lacks one of modules.
func requireVenv(t *testing.T, modules ...string) string {
	t.Helper()
	dir := venvDir()
	if problem := checkVenv(dir, modules...); problem != "" {
		requireOrSkip(t, "COMMLAB_REQUIRE_JUPYTER", problem)
	}
	return dir
}

// requireChromium returns Debian's Chromium, or skips (fails under
// COMMLAB_REQUIRE_BROWSER).
func requireChromium(t *testing.T) string {
	t.Helper()
	if _, err := os.Stat(chromiumPath); err != nil {
		requireOrSkip(t, "COMMLAB_REQUIRE_BROWSER", "chromium not installed (apt-get install chromium)")
	}
	return chromiumPath
}

// artifactsDir is $COMMLAB_ARTIFACTS (default out/browser), made.
func artifactsDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("COMMLAB_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join("..", "out", "browser")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// venvInstall is commlab built into a venv's bin/ and registered there by
// `commlab install --sys-prefix`, once per venv and test binary.
type venvInstall struct {
	bin, kernelDir, output string
	err                    error
}

var (
	venvInstallsMu sync.Mutex
	venvInstalls   = map[string]*venvInstall{}
)

// installInVenv builds commlab into venv/bin/commlab and runs
// `commlab install --sys-prefix` as a person following the README does:
// the venv's bin first on PATH, the venv not activated, so commlab finds
// the prefix through the python that runs `jupyter`. It then asks that
// venv's `jupyter kernelspec list` (with a private home, so nothing
// installed for the user hides the venv's kernelspec) where commlab is.
func installInVenv(t *testing.T, venv string) venvInstall {
	t.Helper()
	venvInstallsMu.Lock()
	defer venvInstallsMu.Unlock()
	if in, ok := venvInstalls[venv]; ok {
		if in.err != nil {
			t.Fatal(in.err)
		}
		return *in
	}
	in := &venvInstall{}
	venvInstalls[venv] = in
	in.bin, in.kernelDir, in.output, in.err = doInstallInVenv(venv)
	if in.err != nil {
		t.Fatal(in.err)
	}
	return *in
}

func doInstallInVenv(venv string) (bin, kernelDir, output string, err error) {
	// Built beside and renamed: a kernel of an earlier run may still be
	// running the old file.
	bin = filepath.Join(venv, "bin", "commlab")
	tmp := bin + ".build"
	if out, err := exec.Command("go", "build", "-o", tmp, module).CombinedOutput(); err != nil {
		return "", "", "", fmt.Errorf("build commlab into the venv: %v\n%s", err, out)
	}
	if err := os.Rename(tmp, bin); err != nil {
		return "", "", "", err
	}
	home, err := os.MkdirTemp("", "commlab-kernelspec-")
	if err != nil {
		return "", "", "", err
	}
	defer os.RemoveAll(home)
	env := jupyterEnv(venv, home)
	install := exec.Command(bin, "install", "--sys-prefix")
	install.Env = env
	out, err := install.CombinedOutput()
	if err != nil {
		return "", "", "", fmt.Errorf("commlab install --sys-prefix: %v\n%s", err, out)
	}
	list := exec.Command(filepath.Join(venv, "bin", "jupyter"), "kernelspec", "list", "--json")
	list.Env = env
	listed, err := list.Output()
	if err != nil {
		return "", "", "", fmt.Errorf("jupyter kernelspec list: %v", err)
	}
	var specs struct {
		Kernelspecs map[string]struct {
			ResourceDir string `json:"resource_dir"`
			Spec        struct {
				Argv     []string `json:"argv"`
				Language string   `json:"language"`
			} `json:"spec"`
		} `json:"kernelspecs"`
	}
	if err := json.Unmarshal(listed, &specs); err != nil {
		return "", "", "", fmt.Errorf("jupyter kernelspec list --json: %v\n%s", err, listed)
	}
	spec, ok := specs.Kernelspecs["commlab"]
	want := filepath.Join(venv, "share", "jupyter", "kernels", "commlab")
	if !ok || spec.ResourceDir != want || len(spec.Spec.Argv) == 0 || spec.Spec.Argv[0] != bin {
		return "", "", "", fmt.Errorf("after commlab install --sys-prefix (%s), the venv's jupyter kernelspec list has commlab as %+v; want it in %s running %s", bytes.TrimSpace(out), spec, want, bin)
	}
	return bin, spec.ResourceDir, string(out), nil
}

// jupyterEnv is the environment of a Jupyter process of the venv: its bin
// first on PATH, home as HOME and every Jupyter directory under it, so a
// kernelspec or setting of the person running the tests plays no part.
func jupyterEnv(venv, home string) []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch {
		case name == "VIRTUAL_ENV", name == "CONDA_PREFIX", name == "PYTHONPATH", name == "PYTHONHOME",
			name == "HOME", name == "PATH", strings.HasPrefix(name, "JUPYTER"), strings.HasPrefix(name, "XDG_"):
			continue
		}
		env = append(env, kv)
	}
	return append(env,
		"PATH="+filepath.Join(venv, "bin")+string(os.PathListSeparator)+os.Getenv("PATH"),
		"HOME="+home,
		"XDG_DATA_HOME="+filepath.Join(home, ".local", "share"),
		"XDG_CACHE_HOME="+filepath.Join(home, ".cache"),
		"JUPYTER_CONFIG_DIR="+filepath.Join(home, ".jupyter"),
		"JUPYTER_DATA_DIR="+filepath.Join(home, ".local", "share", "jupyter"),
		"JUPYTER_RUNTIME_DIR="+filepath.Join(home, "runtime"),
		"JUPYTER_PLATFORM_DIRS=1",
		"PYDEVD_DISABLE_FILE_VALIDATION=1",
	)
}

// server is a process the test started (a Jupyter server, a hub), in a
// process group of its own, its output in an artifact.
type server struct {
	name string
	cmd  *exec.Cmd
	done chan struct{}
}

// startServer starts cmd with its output in artifacts/<name>.log and
// stops it when the test ends: SIGTERM (Jupyter then shuts its kernels
// down), a generous wait for the exit, then SIGKILL for the group.
func startServer(t *testing.T, name string, cmd *exec.Cmd, artifacts string) *server {
	t.Helper()
	logFile, err := os.Create(filepath.Join(artifacts, name+".log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		logFile.Close()
		t.Fatalf("start %s: %v", name, err)
	}
	s := &server{name: name, cmd: cmd, done: make(chan struct{})}
	go func() {
		cmd.Wait()
		logFile.Close()
		close(s.done)
	}()
	t.Cleanup(func() {
		if err := s.stop(2 * time.Minute); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	})
	return s
}

// stop ends the server and waits for it; it is safe to call twice.
func (s *server) stop(grace time.Duration) error {
	select {
	case <-s.done:
		return nil
	default:
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
		_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL) // anything it left in its group
		return nil
	case <-time.After(grace):
		_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
		<-s.done
		return fmt.Errorf("did not stop within %v of SIGTERM; killed", grace)
	}
}

// exited reports whether the server's process has ended.
func (s *server) exited() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

// waitFor polls cond until it holds or the deadline passes; what names
// the condition, and cond's last error says what was seen instead.
func waitFor(what string, deadline time.Duration, cond func() (bool, error)) error {
	end := time.Now().Add(deadline)
	var last error
	for {
		ok, err := cond()
		if ok {
			return nil
		}
		if err != nil {
			last = err
		}
		if time.Now().After(end) {
			if last != nil {
				return fmt.Errorf("%s: not after %v (last: %w)", what, deadline, last)
			}
			return fmt.Errorf("%s: not after %v", what, deadline)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// waitHTTP waits until url answers with status want, or the server exits.
func waitHTTP(t *testing.T, s *server, url string, want int) {
	t.Helper()
	client := &http.Client{Timeout: 10 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	err := waitFor(s.name+" to answer "+url, 3*time.Minute, func() (bool, error) {
		if s.exited() {
			return false, errors.New("exited")
		}
		resp, err := client.Get(url)
		if err != nil {
			return false, err
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			return false, fmt.Errorf("status %d", resp.StatusCode)
		}
		return true, nil
	})
	if err != nil {
		t.Fatalf("%v (log in %s.log)", err, s.name)
	}
}

// kernelProcesses are the running commlab kernels whose connection file
// is under dir (a runtime directory of one server): pid -> parent pid.
func kernelProcesses(dir string) map[int]int {
	procs := map[int]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		raw, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		argv := strings.Split(strings.TrimSuffix(string(raw), "\x00"), "\x00")
		if len(argv) < 3 || filepath.Base(argv[0]) != "commlab" || argv[1] != "kernel" || !strings.HasPrefix(argv[len(argv)-1], dir+string(filepath.Separator)) {
			continue
		}
		if state, ppid, ok := procState(pid); ok && state != "Z" {
			procs[pid] = ppid
		}
	}
	return procs
}

// procState is a process's state letter and parent from /proc/PID/stat.
func procState(pid int) (state string, ppid int, ok bool) {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return "", 0, false
	}
	// pid (comm) state ppid ...; comm may hold spaces and parentheses.
	s := string(raw)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return "", 0, false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 2 {
		return "", 0, false
	}
	ppid, _ = strconv.Atoi(f[1])
	return f[0], ppid, true
}

// processGone reports whether pid has ended (a zombie has).
func processGone(pid int) bool {
	state, _, ok := procState(pid)
	return !ok || state == "Z"
}

// copyFile copies src to dst (a notebook into a server's root).
func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// token is a random string for a server's or a service's token.
func token() string { return strings.ToLower(rand.Text()) }
