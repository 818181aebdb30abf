package ci

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// The hub test is a team session as a trainer runs it: JupyterHub of the
// venv on loopback, its proxy configurable-http-proxy from npm
// (ci/package.json), the dummy authenticator (any name, any password),
// and commlab registered in the hub's environment with
// `commlab install --sys-prefix` and nothing else. Two people log in
// through the hub's login form in browser sessions of their own, each
// opens chapter 1 in JupyterLab and runs it. Their kernels are separate
// processes, each a child of its own user's server, with separate state;
// stopping one user's server ends that user's kernel and leaves the
// other's running.
//
// The spawner is JupyterHub's SimpleLocalProcessSpawner: each user's
// server is a process of the hub's own Unix user (root in CI) with a home
// folder of its own. LocalProcessSpawner would run each server as the
// Unix account of the same name, which CI's machine does not have and the
// test should not create (accounts outlive the run); what it adds is the
// Unix permissions between users, which the tests of
// `commlab install` as another user cover (TestInstallAsAnotherUser).

// hubConfig is the hub's jupyterhub_config.py; %q of Go quotes strings as
// Python reads them for these values (paths, tokens, no backslashes).
const hubConfig = `c = get_config()  # noqa
c.JupyterHub.bind_url = %[1]q
c.JupyterHub.hub_bind_url = %[2]q
c.ConfigurableHTTPProxy.api_url = %[3]q
c.ConfigurableHTTPProxy.command = [%[4]q]
c.ConfigurableHTTPProxy.auth_token = %[5]q
c.JupyterHub.db_url = %[6]q
c.JupyterHub.cookie_secret_file = %[7]q
c.JupyterHub.authenticator_class = "dummy"
c.JupyterHub.spawner_class = "simple"
c.SimpleLocalProcessSpawner.home_dir_template = %[8]q
c.Spawner.cmd = [%[9]q]
c.Spawner.args = ["--allow-root", "--LabApp.expose_app_in_browser=True"]
c.Spawner.default_url = "/lab"
c.Spawner.start_timeout = 300
c.Spawner.http_timeout = 300
c.JupyterHub.services = [{"name": "commlab-test", "api_token": %[10]q}]
c.JupyterHub.load_roles = [{"name": "commlab-test", "scopes": ["admin:users", "admin:servers", "list:users"], "services": ["commlab-test"]}]
`

// proxyCommand is configurable-http-proxy as `npm ci` installs it in ci/.
func proxyCommand() string {
	p, _ := filepath.Abs(filepath.Join("node_modules", ".bin", "configurable-http-proxy"))
	return p
}

// hubUser is one person of the session: their browser tab and home.
type hubUser struct {
	name, home string
	page       *page
}

func TestJupyterHubTeamSession(t *testing.T) {
	venv := requireVenv(t, "jupyterhub", "jupyterlab", "jupyterlab_widgets")
	requireChromium(t)
	proxy := proxyCommand()
	if _, err := os.Stat(proxy); err != nil {
		requireOrSkip(t, "COMMLAB_REQUIRE_JUPYTER", "no configurable-http-proxy in ci/node_modules: `make venv` installs it (npm ci in ci/)")
	}
	installInVenv(t, venv)
	artifacts := artifactsDir(t)
	dir := t.TempDir()
	homes := filepath.Join(dir, "homes")

	users := []*hubUser{{name: "alice"}, {name: "bob"}}
	for _, u := range users {
		u.home = filepath.Join(homes, u.name)
		copyFile(t, filepath.Join("..", "notebooks", chapterNotebook), filepath.Join(u.home, chapterNotebook))
		writeQuietLabSettings(t, u.home)
	}

	base := fmt.Sprintf("http://127.0.0.1:%d", freePort(t))
	service := token()
	config := fmt.Sprintf(hubConfig, base, fmt.Sprintf("http://127.0.0.1:%d", freePort(t)), fmt.Sprintf("http://127.0.0.1:%d", freePort(t)),
		proxy, token(), "sqlite:///"+filepath.Join(dir, "jupyterhub.sqlite"), filepath.Join(dir, "jupyterhub_cookie_secret"),
		filepath.Join(homes, "{username}"), filepath.Join(venv, "bin", "jupyterhub-singleuser"), service)
	configFile := filepath.Join(dir, "jupyterhub_config.py")
	if err := os.WriteFile(configFile, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(venv, "bin", "jupyterhub"), "-f", configFile)
	cmd.Dir = dir
	cmd.Env = jupyterEnv(venv, filepath.Join(dir, "hub-home"))
	hub := startServer(t, "jupyterhub", cmd, artifacts)
	waitHTTP(t, hub, base+"/hub/api/", 200)
	api := hubAPI{t: t, base: base + "/hub/api", token: service}

	root := newChromium(t, dir, 15*time.Minute)
	if err := chromedp.Do(root, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	for _, u := range users {
		// The hub starts the user's server, then sends the browser to it.
		u.logIn(t, root, base, artifacts, "hub-", "the user's JupyterLab")
		runChapter(t, u.page, base+"/user/"+u.name+"/lab/tree/"+chapterNotebook)
	}
	alice, bob := users[0], users[1]

	// Separate state: what alice defines, bob's kernel does not know.
	alice.page.do(
		alice.page.js(`await ct.newCell('teamNote := "set by alice"\nfmt.Println(teamNote)', 'note'); ct.run(ct.nb().activeCellIndex);`),
		alice.page.waitJS("alice's cell", `ct.idle() && ct.outText(ct.at.note).includes('set by alice')`, `ct.diagnose()`, time.Minute),
		alice.page.shot("2-state.png"),
	)
	bob.page.do(
		bob.page.js(`await ct.newCell('fmt.Println(teamNote)', 'note'); ct.run(ct.nb().activeCellIndex);`),
		bob.page.waitJS("bob's cell", `ct.idle() && ct.at.note.model.executionCount !== null`, `ct.diagnose()`, time.Minute),
		bob.page.shot("2-state.png"),
	)
	var bobSees string
	bob.page.do(bob.page.read(`ct.outText(ct.at.note)`, &bobSees))
	if !strings.Contains(bobSees, "undefined: teamNote") {
		t.Errorf("bob's kernel printed %q for alice's variable; want the compile error undefined: teamNote", bobSees)
	}

	// Separate processes: one commlab kernel under each home, a child of
	// that user's server (the pid the hub keeps in the spawner's state).
	kernelOf := map[string]int{}
	for _, u := range users {
		kernels := kernelProcesses(u.home)
		serverPID := api.serverPID(u.name)
		if len(kernels) != 1 {
			t.Fatalf("%s has %d commlab kernels running (%v), want 1", u.name, len(kernels), kernels)
		}
		for pid, ppid := range kernels {
			if ppid != serverPID {
				t.Errorf("%s's kernel %d is a child of %d, not of %s's server %d", u.name, pid, ppid, u.name, serverPID)
			}
			kernelOf[u.name] = pid
		}
	}
	if kernelOf["alice"] == kernelOf["bob"] {
		t.Fatalf("alice and bob share kernel process %d", kernelOf["alice"])
	}

	// Stopping alice's server ends her kernel; bob's goes on.
	alicePID := api.serverPID("alice")
	// Her open page then fails to reach her server (the hub answers 424),
	// as it does for anyone whose server is stopped.
	alice.page.expectErrorsFromNow("alice's server was stopped on purpose")
	api.do("DELETE", "/users/alice/server", http.StatusAccepted, http.StatusNoContent)
	if err := waitFor("alice's kernel and server to end", 3*time.Minute, func() (bool, error) {
		return processGone(kernelOf["alice"]) && processGone(alicePID), nil
	}); err != nil {
		t.Fatal(err)
	}
	if processGone(kernelOf["bob"]) {
		t.Fatalf("bob's kernel %d ended with alice's server", kernelOf["bob"])
	}
	bob.page.do(
		bob.page.js(`await ct.newCell('fmt.Println("bob still at", n, "GPUs")', 'after'); ct.run(ct.nb().activeCellIndex);`),
		bob.page.waitJS("bob's kernel to answer after alice left", `ct.idle() && ct.outText(ct.at.after).includes('bob still at 8 GPUs')`, `ct.diagnose()`, time.Minute),
		bob.page.shot("3-after-alice-stopped.png"),
	)
	for _, u := range users {
		u.page.checkConsole()
	}

	// The hub's end stops bob's server and kernel too.
	if err := hub.stop(2 * time.Minute); err != nil {
		t.Error(err)
	}
	if err := waitFor("bob's kernel to end with the hub", 2*time.Minute, func() (bool, error) { return processGone(kernelOf["bob"]), nil }); err != nil {
		t.Error(err)
	}
}

// logIn opens a browser context of u's own under root (the people share
// no cookie), logs u in through the hub's form at base, and waits (what
// names the wait) until the hub has sent the browser to u's JupyterLab.
// The page's artifacts are named prefix+u.name+"-".
func (u *hubUser) logIn(t *testing.T, root context.Context, base, artifacts, prefix, what string) {
	ctx, cancel := chromedp.NewContext(root, chromedp.WithNewBrowserContext())
	t.Cleanup(cancel)
	u.page = newPage(t, ctx, artifacts, prefix+u.name+"-", labConsoleNoise)
	u.page.do(
		chromedp.Navigate(base+"/hub/login"),
		chromedp.WaitVisible(chromedp.ID("username_input")),
		chromedp.SetValue(chromedp.ID("username_input"), u.name),
		chromedp.SetValue(chromedp.ID("password_input"), "any password"),
		u.page.shot("0-login.png"),
		chromedp.Click(chromedp.ID("login_submit")),
		u.page.waitJS(what, `location.pathname.startsWith('/user/`+u.name+`/lab') && !!window.jupyterapp`,
			`location.href + ' ' + document.body.innerText.slice(0, 300)`, 5*time.Minute),
	)
}

// hubAPI calls the hub's REST API with the test service's token.
type hubAPI struct {
	t           *testing.T
	base, token string
}

func (a hubAPI) do(method, path string, want ...int) []byte {
	a.t.Helper()
	req, err := http.NewRequest(method, a.base+path, nil)
	if err != nil {
		a.t.Fatal(err)
	}
	req.Header.Set("Authorization", "token "+a.token)
	resp, err := (&http.Client{Timeout: time.Minute}).Do(req)
	if err != nil {
		a.t.Fatalf("hub API %s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	for _, w := range want {
		if resp.StatusCode == w {
			return body
		}
	}
	a.t.Fatalf("hub API %s %s: status %d, want %v: %s", method, path, resp.StatusCode, want, body)
	return nil
}

// serverState reads the spawner's state of a user's ready default server
// into state (the pid of a local process, the job of a batch system).
func (a hubAPI) serverState(user string, state any) {
	a.t.Helper()
	var u struct {
		Servers map[string]struct {
			Ready bool            `json:"ready"`
			State json.RawMessage `json:"state"`
		} `json:"servers"`
	}
	body := a.do("GET", "/users/"+user, http.StatusOK)
	if err := json.Unmarshal(body, &u); err != nil {
		a.t.Fatalf("hub API user %s: %v: %s", user, err, body)
	}
	s, ok := u.Servers[""]
	if !ok || !s.Ready {
		a.t.Fatalf("hub API: %s has no ready server: %s", user, body)
	}
	if err := json.Unmarshal(s.State, state); err != nil {
		a.t.Fatalf("hub API: %s's server state: %v: %s", user, err, body)
	}
}

// serverPID is the pid of a user's running default server.
func (a hubAPI) serverPID(user string) int {
	a.t.Helper()
	var state struct {
		PID int `json:"pid"`
	}
	a.serverState(user, &state)
	if state.PID == 0 {
		a.t.Fatalf("hub API: %s's server has no pid", user)
	}
	return state.PID
}
