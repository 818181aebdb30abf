package literate_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/commlab/commlab/ci/pythons"
)

// jupyterServer is a Jupyter server a test started on loopback.
type jupyterServer struct {
	url, token string
	log        *bytes.Buffer
}

// startJupyterServer starts `python -m jupyter_server` on a free loopback
// port with a token, serving root, with no configuration of the user's;
// it waits until the server answers and stops it when the test ends.
func startJupyterServer(t *testing.T, py pythons.Python, root string) *jupyterServer {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	home := t.TempDir()
	s := &jupyterServer{url: fmt.Sprintf("http://127.0.0.1:%d", port), token: "commlab-test-token", log: &bytes.Buffer{}}
	cmd := exec.Command(py.Path, "-m", "jupyter_server", "--ServerApp.ip=127.0.0.1", fmt.Sprintf("--ServerApp.port=%d", port),
		"--ServerApp.port_retries=0", "--IdentityProvider.token="+s.token, "--ServerApp.root_dir="+root,
		"--ServerApp.open_browser=False", "--allow-root") // CI runs as root
	cmd.Env = append(os.Environ(), "HOME="+home, "JUPYTER_CONFIG_DIR="+filepath.Join(home, "config"),
		"JUPYTER_DATA_DIR="+filepath.Join(home, "data"), "JUPYTER_RUNTIME_DIR="+filepath.Join(home, "runtime"))
	cmd.Stdout, cmd.Stderr = s.log, s.log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	var waitErr error
	go func() { waitErr = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(30 * time.Second):
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-exited
		}
	})
	// Wait for the server to answer (a condition, with a generous deadline).
	deadline := time.Now().Add(90 * time.Second)
	for {
		req, _ := http.NewRequest("GET", s.url+"/api/status", nil)
		req.Header.Set("Authorization", "token "+s.token)
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return s
			}
		}
		select {
		case <-exited:
			t.Fatalf("jupyter server exited: %v\n%s", waitErr, s.log)
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("jupyter server did not answer on %s\n%s", s.url, s.log)
		}
	}
}

// do sends a request with the token and decodes the JSON answer into out.
func (s *jupyterServer) do(t *testing.T, method, path string, body, out any) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, s.url+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "token "+s.token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if resp.StatusCode/100 != 2 {
		t.Fatalf("%s %s: %s\n%s\nserver log:\n%s", method, path, resp.Status, data, s.log)
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
	}
}
