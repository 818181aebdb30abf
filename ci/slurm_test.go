package ci

import (
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// The Slurm tests run a scheduler of one machine: Debian 12's munged,
// slurmctld and slurmd started by ci/slurm-local.sh in a temporary
// folder (a controller and its node(s) on loopback, their own munge key
// and ports, nothing in /etc), stopped with their jobs when the test ends.

// requireSlurm skips the test without Slurm's and munge's programs, or
// fails it under COMMLAB_REQUIRE_SLURM (CI installs them).
func requireSlurm(t *testing.T) {
	t.Helper()
	for _, tool := range []string{"munged", "mungekey", "slurmctld", "slurmd", "sbatch", "srun", "squeue", "scancel", "sinfo"} {
		if _, err := exec.LookPath(tool); err != nil {
			requireOrSkip(t, "COMMLAB_REQUIRE_SLURM", "no "+tool+": apt-get install munge slurmctld slurmd slurm-client")
		}
	}
}

// startSlurm starts a cluster of nodes in dir and returns its slurm.conf;
// the test's end cancels its jobs and stops it.
func startSlurm(t *testing.T, dir string, nodes int) string {
	t.Helper()
	script, _ := filepath.Abs("slurm-local.sh")
	out, err := exec.Command(script, "start", dir, strconv.Itoa(nodes)).CombinedOutput()
	t.Cleanup(func() {
		if out, err := exec.Command(script, "stop", dir).CombinedOutput(); err != nil {
			t.Errorf("stop slurm: %v\n%s", err, out)
		}
	})
	if err != nil {
		t.Fatalf("start slurm: %v\n%s", err, out)
	}
	return filepath.Join(dir, "slurm.conf")
}

// slurmJobs are the jobs squeue shows: id -> state ("RUNNING", ...).
func slurmJobs(conf string) (map[string]string, error) {
	cmd := exec.Command("squeue", "-h", "-o", "%i %T")
	cmd.Env = append(os.Environ(), "SLURM_CONF="+conf)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("squeue: %v: %s", err, out)
	}
	jobs := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if id, state, ok := strings.Cut(strings.TrimSpace(line), " "); ok {
			jobs[id] = state
		}
	}
	return jobs, nil
}

// slurmDiagnosis is what the controller knew, for a failure's message:
// every job squeue still shows (ended ones too) and its log's tail.
func slurmDiagnosis(conf string) string {
	cmd := exec.Command("squeue", "-h", "-t", "all", "-o", "%i %j %T %r %N")
	cmd.Env = append(os.Environ(), "SLURM_CONF="+conf)
	jobs, err := cmd.CombinedOutput()
	if err != nil {
		jobs = append(jobs, []byte(err.Error())...)
	}
	log, _ := os.ReadFile(filepath.Join(filepath.Dir(conf), "log", "slurmctld.log"))
	lines := strings.Split(strings.TrimRight(string(log), "\n"), "\n")
	if len(lines) > 40 {
		lines = lines[len(lines)-40:]
	}
	return "squeue -t all:\n" + string(jobs) + "slurmctld.log (tail):\n" + strings.Join(lines, "\n")
}

// underSlurm reports whether pid descends from a slurmstepd: a process of
// a Slurm job.
func underSlurm(pid int) bool {
	for i := 0; pid > 1 && i < 64; i++ {
		comm, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
		if err != nil {
			return false
		}
		if strings.TrimSpace(string(comm)) == "slurmstepd" {
			return true
		}
		_, ppid, ok := procState(pid)
		if !ok {
			return false
		}
		pid = ppid
	}
	return false
}

// slurmHubConfig is the hub of the Slurm test: batchspawner's
// SlurmSpawner submits each user's server as a job of the local cluster.
// CI has one Unix account, so the spawner submits as the hub's user
// (exec_prefix "") and gives each learner a home folder of their own
// (user_env, req_homedir); on a cluster, the accounts are the users and
// ci/jupyterhub_slurm_config.py keeps batchspawner's defaults.
const slurmHubConfig = `import os
import batchspawner  # noqa: F401  (adds the hub's /api/batchspawner, where a job tells its port)
c = get_config()  # noqa: F821
c.JupyterHub.bind_url = %[1]q
c.JupyterHub.hub_bind_url = %[2]q
c.ConfigurableHTTPProxy.api_url = %[3]q
c.ConfigurableHTTPProxy.command = [%[4]q]
c.ConfigurableHTTPProxy.auth_token = %[5]q
c.JupyterHub.db_url = %[6]q
c.JupyterHub.cookie_secret_file = %[7]q
c.JupyterHub.authenticator_class = "dummy"
homes = %[8]q
chapters = %[9]q

class LearnerSlurmSpawner(batchspawner.SlurmSpawner):
    def user_env(self, env):
        env["USER"] = self.user.name
        env["HOME"] = os.path.join(homes, self.user.name)
        return env

def make_home(spawner):
    spawner.req_homedir = os.path.join(homes, spawner.user.name)
    os.makedirs(spawner.req_homedir, exist_ok=True)

c.JupyterHub.spawner_class = LearnerSlurmSpawner
c.Spawner.pre_spawn_hook = make_home
c.SlurmSpawner.exec_prefix = ""
c.SlurmSpawner.req_partition = "lab"
c.SlurmSpawner.req_runtime = "01:00:00"
c.SlurmSpawner.req_nprocs = "1"
c.SlurmSpawner.req_prologue = 'cp -n "' + chapters + '"/*.ipynb "$HOME"/'
# The server listens on loopback of the node, which is this machine.
c.SlurmSpawner.state_exechost_exp = "127.0.0.1"
c.SlurmSpawner.batchspawner_singleuser_cmd = %[10]q
c.Spawner.env_keep = ["PATH", "LANG", "LC_ALL", "SLURM_CONF", "JUPYTER_PLATFORM_DIRS", "PYDEVD_DISABLE_FILE_VALIDATION"]
c.Spawner.cmd = [%[11]q]
c.Spawner.args = ["--allow-root", "--LabApp.expose_app_in_browser=True"]
c.Spawner.default_url = "/lab"
c.Spawner.start_timeout = 300
c.Spawner.http_timeout = 300
c.JupyterHub.services = [{"name": "commlab-test", "api_token": %[12]q}]
c.JupyterHub.load_roles = [{"name": "commlab-test", "scopes": ["admin:users", "admin:servers", "list:users"], "services": ["commlab-test"]}]
`

// jobOf is the Slurm job id the hub keeps for a user's running server.
func (a hubAPI) jobOf(user string) string {
	a.t.Helper()
	var state struct {
		JobID string `json:"job_id"`
	}
	a.serverState(user, &state)
	if state.JobID == "" {
		a.t.Fatalf("hub API: %s's server has no Slurm job", user)
	}
	return state.JobID
}

// TestJupyterHubOnSlurm: two learners log in through the hub's form; the
// hub submits each one's server as a Slurm job (squeue shows two), the
// commlab kernel runs inside the job with the chapters copied into the
// learner's home by the job, and each runs chapter 1. Stopping alice's
// server ends her job; bob's runs on.
func TestJupyterHubOnSlurm(t *testing.T) {
	requireSlurm(t)
	venv := requireVenv(t, "jupyterhub", "jupyterlab", "jupyterlab_widgets", "batchspawner")
	requireChromium(t)
	proxy := proxyCommand()
	if _, err := os.Stat(proxy); err != nil {
		requireOrSkip(t, "COMMLAB_REQUIRE_JUPYTER", "no configurable-http-proxy in ci/node_modules: `make venv` installs it (npm ci in ci/)")
	}
	installInVenv(t, venv)
	artifacts := artifactsDir(t)
	dir := t.TempDir()
	conf := startSlurm(t, filepath.Join(dir, "slurm"), 1)
	homes := filepath.Join(dir, "homes")
	chapters, _ := filepath.Abs(filepath.Join("..", "notebooks"))

	users := []*hubUser{{name: "alice"}, {name: "bob"}}
	for _, u := range users {
		u.home = filepath.Join(homes, u.name)
		writeQuietLabSettings(t, u.home)
	}
	base := fmt.Sprintf("http://127.0.0.1:%d", freePort(t))
	service := token()
	config := fmt.Sprintf(slurmHubConfig, base, fmt.Sprintf("http://127.0.0.1:%d", freePort(t)), fmt.Sprintf("http://127.0.0.1:%d", freePort(t)),
		proxy, token(), "sqlite:///"+filepath.Join(dir, "jupyterhub.sqlite"), filepath.Join(dir, "jupyterhub_cookie_secret"),
		homes, chapters, filepath.Join(venv, "bin", "batchspawner-singleuser"), filepath.Join(venv, "bin", "jupyterhub-singleuser"), service)
	configFile := filepath.Join(dir, "jupyterhub_config.py")
	if err := os.WriteFile(configFile, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(venv, "bin", "jupyterhub"), "-f", configFile)
	cmd.Dir = dir
	cmd.Env = append(jupyterEnv(venv, filepath.Join(dir, "hub-home")), "SLURM_CONF="+conf)
	hub := startServer(t, "jupyterhub-slurm", cmd, artifacts)
	waitHTTP(t, hub, base+"/hub/api/", 200)
	api := hubAPI{t: t, base: base + "/hub/api", token: service}

	root := newChromium(t, dir, 15*time.Minute)
	if err := chromedp.Do(root, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	jobOf := map[string]string{}
	for _, u := range users {
		// The hub submits the job, waits for it to run and the server in it
		// to call back, then sends the browser there.
		u.logIn(t, root, base, artifacts, "slurm-hub-", "the user's JupyterLab in a Slurm job")
		// The job copied the chapters into the learner's home.
		if _, err := os.Stat(filepath.Join(u.home, chapterNotebook)); err != nil {
			t.Fatalf("%s's job did not place the chapters in their home: %v", u.name, err)
		}
		runChapter(t, u.page, base+"/user/"+u.name+"/lab/tree/"+chapterNotebook)
		jobOf[u.name] = api.jobOf(u.name)
	}

	// Two jobs, one per learner, both running; each kernel inside its job.
	jobs, err := slurmJobs(conf)
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != 2 || jobOf["alice"] == jobOf["bob"] || jobs[jobOf["alice"]] != "RUNNING" || jobs[jobOf["bob"]] != "RUNNING" {
		t.Fatalf("squeue shows %v; want alice's job %s and bob's %s running", jobs, jobOf["alice"], jobOf["bob"])
	}
	kernelOf := map[string]int{}
	for _, u := range users {
		kernels := kernelProcesses(u.home)
		if len(kernels) != 1 {
			t.Fatalf("%s has %d commlab kernels running (%v), want 1", u.name, len(kernels), kernels)
		}
		for pid := range kernels {
			if !underSlurm(pid) {
				t.Errorf("%s's kernel %d does not run inside a Slurm job", u.name, pid)
			}
			kernelOf[u.name] = pid
		}
	}

	// Stopping alice's server ends her job and kernel; bob's job runs on.
	alice := users[0]
	alice.page.expectErrorsFromNow("alice's server was stopped on purpose")
	api.do("DELETE", "/users/alice/server", http.StatusAccepted, http.StatusNoContent)
	if err := waitFor("alice's job to leave the queue and her kernel to end", 3*time.Minute, func() (bool, error) {
		jobs, err := slurmJobs(conf)
		if err != nil {
			return false, err
		}
		if _, queued := jobs[jobOf["alice"]]; queued {
			return false, fmt.Errorf("squeue: %v", jobs)
		}
		return processGone(kernelOf["alice"]), nil
	}); err != nil {
		t.Fatal(err)
	}
	if jobs, err := slurmJobs(conf); err != nil || jobs[jobOf["bob"]] != "RUNNING" || processGone(kernelOf["bob"]) {
		t.Fatalf("after alice stopped: squeue %v (%v), bob's kernel gone %v", jobs, err, processGone(kernelOf["bob"]))
	}
	for _, u := range users {
		u.page.checkConsole()
	}
	if err := hub.stop(2 * time.Minute); err != nil {
		t.Error(err)
	}
}

// TestDoctorOnSlurm runs `commlab doctor --launcher srun --run` through
// the real srun of a two-node cluster on this machine: every node's
// doctor writes into the shared folder, the sweep runs the CPU stand-in
// (no GPU here, said so), and the follow-up reads both nodes into one
// report. Bad input stops the plan with the scheduler's cause and keeps
// what was collected: a partition that does not exist, nodes that never
// start (more than the partition has), a sweep cut by its time limit
// whose srun lost the line that says so.
func TestDoctorOnSlurm(t *testing.T) {
	requireSlurm(t)
	dir := t.TempDir()
	bin := filepath.Join(dir, "commlab")
	if out, err := exec.Command("go", "build", "-o", bin, module).CombinedOutput(); err != nil {
		t.Fatalf("build commlab: %v\n%s", err, out)
	}
	conf := startSlurm(t, filepath.Join(dir, "slurm"), 2)
	// A sweep program that runs until Slurm stops it.
	slow := filepath.Join(dir, "slow")
	if err := os.MkdirAll(slow, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(slow, "all_reduce_perf"), []byte("#!/bin/sh\nexec sleep 600\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	// Beside it an srun that loses slurmstepd's time-limit line, as srun
	// may when it tears its I/O down first (one node's stepd prints it):
	// the cut is then known from the job's end state in the controller.
	realSrun, err := exec.LookPath("srun")
	if err != nil {
		t.Fatal(err)
	}
	lossy := fmt.Sprintf("#!/bin/bash\nset -o pipefail\n%q \"$@\" 2>&1 | { grep -v --line-buffered 'DUE TO TIME LIMIT' || true; }\n", realSrun)
	if err := os.WriteFile(filepath.Join(slow, "srun"), []byte(lossy), 0o755); err != nil {
		t.Fatal(err)
	}
	doctor := func(t *testing.T, nodes string, env ...string) (out, stderr string, code int) {
		t.Helper()
		shared := filepath.Join(t.TempDir(), "shared")
		cmd := exec.Command(bin, "doctor", "--launcher", "srun", "--nodes", nodes, "--per-node", "1", "--out", shared, "--run")
		cmd.Env = append(append(os.Environ(), "SLURM_CONF="+conf), env...)
		var o, e strings.Builder
		cmd.Stdout, cmd.Stderr = &o, &e
		err := cmd.Run()
		code = cmd.ProcessState.ExitCode()
		if err != nil && code < 0 {
			t.Fatalf("commlab doctor: %v", err)
		}
		return o.String(), e.String(), code
	}

	t.Run("two nodes, one report", func(t *testing.T) {
		out, stderr, code := doctor(t, "2")
		if code > 2 || !strings.Contains(stderr, "no GPU and no all_reduce_perf on this machine: the sweep runs a CPU stand-in") {
			t.Fatalf("exit %d; stderr:\n%s", code, stderr)
		}
		if !strings.Contains(out, "per-node reports:") || !strings.Contains(out, "(2 nodes: node1, node2)") {
			t.Errorf("the report does not read both nodes:\n%s", out)
		}
		if !strings.Contains(out, "no nccl-tests row") {
			t.Errorf("the report does not say the sweep measured nothing:\n%s", out)
		}
	})
	for _, tc := range []struct {
		name, nodes string
		env         []string
		verdict     string
		kept        string
	}{
		{"no such partition", "2", []string{"SLURM_PARTITION=nope"}, `no such partition "nope"`, "kept: 0 node report(s)"},
		{"nodes that never start", "3", []string{"COMMLAB_SRUN_QUEUE_WAIT=5s"}, "waited 5s in the queue and never started (Slurm's reason: PartitionNodeLimit)", "kept: 0 node report(s)"},
		{"cut by its time limit, the line saying so lost", "2", []string{"SLURM_TIMELIMIT=0:05", "PATH=" + slow + string(os.PathListSeparator) + os.Getenv("PATH")}, "in state TIMEOUT: its time limit (SLURM_TIMELIMIT, or the partition's) ran out", "kept: 2 node report(s)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr, code := doctor(t, tc.nodes, tc.env...)
			if code != 1 || !strings.Contains(stderr, "the scheduler stopped the plan: ") || !strings.Contains(stderr, tc.verdict) || !strings.Contains(stderr, tc.kept) {
				t.Errorf("exit %d, want 1 with %q and %q; stderr:\n%s\n%s", code, tc.verdict, tc.kept, stderr, slurmDiagnosis(conf))
			}
			// A cut job may still be completing: no job stays queued.
			if err := waitFor("the queue to empty", time.Minute, func() (bool, error) {
				jobs, err := slurmJobs(conf)
				if err != nil {
					return false, err
				}
				return len(jobs) == 0, fmt.Errorf("squeue: %v", jobs)
			}); err != nil {
				t.Error(err)
			}
		})
	}
}
