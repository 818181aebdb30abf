package nccl

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/commlab/commlab/probes"
	"github.com/commlab/commlab/probes/launch"
)

// The child protocol: the parent writes the Config as JSON to a file and
// starts the child with COMMLAB_NCCL_WORKER_CONFIG and _RESULT naming the
// config and where to write the Run; progress comes back on stderr as
// "commlab-progress DONE TOTAL WHAT" lines. Files rather than stdout keep
// the result apart from whatever NCCL prints.
const (
	envWorkerConfig = "COMMLAB_NCCL_WORKER_CONFIG"
	envWorkerResult = "COMMLAB_NCCL_WORKER_RESULT"
	progressPrefix  = "commlab-progress "
	heartbeatLine   = "commlab-alive"
)

// childSlack is how long past its timeout a child may stay silent before
// its first heartbeat (NCCL's initialisation comes first); afterSlack is
// the margin past the timeout and the abort's grace between later ones.
var (
	childSlack = 60 * time.Second
	afterSlack = 15 * time.Second
)

// maxLogBytes caps the NCCL log kept in a run; the head is kept, since it
// holds the version, topology and graph search.
const maxLogBytes = 2 << 20

// IsWorker reports whether this process was started by MeasureInChild.
func IsWorker() bool { return os.Getenv(envWorkerConfig) != "" }

// ServeWorker runs the child side: reads the config, measures, writes the
// run (also when the measurement failed part way), and reports progress on
// progress (usually stderr).
func ServeWorker(progress io.Writer) error {
	cfgPath, outPath := os.Getenv(envWorkerConfig), os.Getenv(envWorkerResult)
	if cfgPath == "" || outPath == "" {
		return fmt.Errorf("nccl: worker: %s and %s must both be set", envWorkerConfig, envWorkerResult)
	}
	b, err := os.ReadFile(cfgPath)
	if err != nil {
		return fmt.Errorf("nccl: worker: %w", err)
	}
	var cfg Config
	if err := json.Unmarshal(b, &cfg); err != nil {
		return fmt.Errorf("nccl: worker: config: %w", err)
	}
	var mu sync.Mutex
	cfg.Progress = func(done, total int, what string) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(progress, "%s%d %d %s\n", progressPrefix, done, total, what)
	}
	cfg.beat = func() {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintln(progress, heartbeatLine)
	}
	cfg.checkpoint = func(r *probes.Run) {
		// Best effort: the final Save below reports errors.
		r.Save(outPath)
	}
	run, merr := Measure(cfg)
	if run == nil {
		run = &probes.Run{Kind: "nccl", Date: time.Now().UTC(), Env: ncclEnv(cfg.Env)}
	}
	if merr != nil {
		run.Error = merr.Error()
	}
	if err := run.Save(outPath); err != nil {
		return err
	}
	return merr
}

// MeasureInChild runs Measure in a child process started as argv (the
// commlab binary and the arguments that make it call ServeWorker) with
// cfg.Env added to this process's environment. The child aborts a hung
// collective itself (see TimeoutError); as a last resort a watchdog kills
// the child when it sends no heartbeat for cfg.Timeout plus the abort's
// grace and some slack (a minute before the first): a hang that even
// ncclCommAbort cannot end then costs a killed child, never a hung
// notebook. When NCCL_DEBUG is set the log comes back in the run's
// Logs["nccl-debug"]: from a temporary file, or from the file the user's
// NCCL_DEBUG_FILE names for the child (DebugFileName); the child's own output comes back in
// Logs["output"].
func MeasureInChild(ctx context.Context, cfg Config, argv []string) (*probes.Run, error) {
	if len(argv) == 0 {
		return nil, fmt.Errorf("nccl: child: no command")
	}
	dir, err := os.MkdirTemp("", "commlab-nccl-")
	if err != nil {
		return nil, fmt.Errorf("nccl: child: %w", err)
	}
	defer os.RemoveAll(dir)
	progress := cfg.Progress
	cfg.Progress = nil
	b, err := json.Marshal(cfg)
	if err != nil {
		return nil, fmt.Errorf("nccl: child: %w", err)
	}
	cfgPath, outPath := filepath.Join(dir, "config.json"), filepath.Join(dir, "run.json")
	if err := os.WriteFile(cfgPath, b, 0o600); err != nil {
		return nil, fmt.Errorf("nccl: child: %w", err)
	}
	env := map[string]string{}
	for _, kv := range os.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	for k, v := range cfg.Env {
		env[k] = v
	}
	debugFile, userDebugFile := "", ""
	if env["NCCL_DEBUG"] != "" {
		if env["NCCL_DEBUG_FILE"] == "" {
			debugFile = filepath.Join(dir, "nccl-debug.log")
			env["NCCL_DEBUG_FILE"] = debugFile
		} else {
			// The user's own file: read back once the child's pid is known.
			userDebugFile = env["NCCL_DEBUG_FILE"]
		}
	}
	kept := map[string]string{} // Logs key -> file NCCL writes or reads
	if cfg.DumpTopology {
		for _, f := range []struct{ env, file, log string }{
			{"NCCL_TOPO_DUMP_FILE", "topo-dump.xml", "nccl-topo-dump"},
			{"NCCL_GRAPH_DUMP_FILE", "graph-dump.xml", "nccl-graph-dump"},
		} {
			if env[f.env] == "" {
				env[f.env] = filepath.Join(dir, f.file)
			}
			kept[f.log] = env[f.env]
		}
		if env["NCCL_GRAPH_DUMP_FILE_RANK"] == "" {
			env["NCCL_GRAPH_DUMP_FILE_RANK"] = "0"
		}
	}
	if cfg.TopoXML != "" {
		topoFile := filepath.Join(dir, "topo-file.xml")
		if err := os.WriteFile(topoFile, []byte(cfg.TopoXML), 0o600); err != nil {
			return nil, fmt.Errorf("nccl: child: %w", err)
		}
		env["NCCL_TOPO_FILE"] = topoFile
		kept["nccl-topo-file"] = topoFile
	}
	env[envWorkerConfig], env[envWorkerResult] = cfgPath, outPath
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	for _, k := range slices.Sorted(maps.Keys(env)) {
		cmd.Env = append(cmd.Env, k+"="+env[k])
	}
	var output launch.SyncBuffer
	cmd.Stdout = &output
	pr, pw := io.Pipe()
	cmd.Stderr = pw
	scanDone := make(chan struct{})
	alive := make(chan struct{}, 1)
	go func() {
		defer close(scanDone)
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			if line == heartbeatLine {
				select {
				case alive <- struct{}{}:
				default:
				}
				continue
			}
			if rest, ok := strings.CutPrefix(line, progressPrefix); ok {
				f := strings.SplitN(rest, " ", 3)
				if len(f) == 3 && progress != nil {
					d, _ := strconv.Atoi(f[0])
					t, _ := strconv.Atoi(f[1])
					progress(d, t, f[2])
				}
				continue
			}
			output.WriteString(line + "\n")
		}
		io.Copy(io.Discard, pr)
	}()
	cfg.defaults()
	silence := cfg.Timeout + childSlack
	beaten := false
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("nccl: child: %w", err)
	}
	if userDebugFile != "" {
		debugFile = DebugFileName(userDebugFile, cmd.Process.Pid)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	var runErr error
	killed := false
	timer := time.NewTimer(silence)
	defer timer.Stop()
wait:
	for {
		select {
		case runErr = <-exited:
			break wait
		case <-alive:
			if !beaten {
				beaten = true
				silence = cfg.Timeout + abortGrace + afterSlack
			}
			if !timer.Stop() {
				<-timer.C
			}
			timer.Reset(silence)
		case <-timer.C:
			killed = true
			cmd.Process.Kill()
		}
	}
	pw.Close()
	<-scanDone
	if killed {
		run := &probes.Run{Kind: "nccl", Date: time.Now().UTC(), Command: append([]string(nil), argv...), Env: cfg.Env,
			Logs: map[string]string{"output": tail(output.String(), maxLogBytes)}}
		if debugFile != "" {
			if log, err := os.ReadFile(debugFile); err == nil {
				run.Logs["nccl-debug"] = tail(string(log), maxLogBytes)
			}
		}
		if prev, err := probes.LoadRun(outPath); err == nil {
			prev.Command, prev.Logs = run.Command, run.Logs
			run = prev
		}
		keepFiles(run, kept)
		run.Error = fmt.Sprintf("child killed after %s without a heartbeat: the operations hung and ncclCommAbort did not end them", silence)
		return run, fmt.Errorf("%w: %s", ErrTimeout, run.Error)
	}
	run, err := probes.LoadRun(outPath)
	if err != nil {
		return nil, fmt.Errorf("nccl: child %v failed before writing its run: %v: %s", argv, runErr, tail(output.String(), 2000))
	}
	run.Command = append([]string(nil), argv...)
	if run.Logs == nil {
		run.Logs = map[string]string{}
	}
	if output.Len() > 0 {
		run.Logs["output"] = tail(output.String(), maxLogBytes)
	}
	if debugFile != "" {
		if log, err := os.ReadFile(debugFile); err == nil {
			s := string(log)
			if len(s) > maxLogBytes {
				s = s[:maxLogBytes]
				run.Notes = append(run.Notes, fmt.Sprintf("nccl-debug log cut to its first %d bytes", maxLogBytes))
			}
			run.Logs["nccl-debug"] = s
		}
	}
	keepFiles(run, kept)
	if run.Error != "" {
		return run, fmt.Errorf("nccl: child: %s", run.Error)
	}
	if runErr != nil {
		return run, fmt.Errorf("nccl: child: %w", runErr)
	}
	return run, nil
}

// DebugFileName is the file NCCL writes its log to for an NCCL_DEBUG_FILE
// pattern in a process of that pid: %h is the host name up to its first
// dot, %p the pid, %% a percent sign, anything else kept as written
// (src/debug.cc, NCCL 2.28.9).
func DebugFileName(pattern string, pid int) string {
	host, _ := os.Hostname()
	host, _, _ = strings.Cut(host, ".")
	var b strings.Builder
	for i := 0; i < len(pattern); i++ {
		if pattern[i] != '%' || i+1 >= len(pattern) {
			b.WriteByte(pattern[i])
			continue
		}
		i++
		switch pattern[i] {
		case '%':
			b.WriteByte('%')
		case 'h':
			b.WriteString(host)
		case 'p':
			b.WriteString(strconv.Itoa(pid))
		default:
			b.WriteByte('%')
			b.WriteByte(pattern[i])
		}
	}
	return b.String()
}

// keepFiles puts the files NCCL wrote or read beside the run into its
// Logs; a dump NCCL did not write is noted, not an error.
func keepFiles(run *probes.Run, files map[string]string) {
	for _, name := range slices.Sorted(maps.Keys(files)) {
		b, err := os.ReadFile(files[name])
		if err != nil {
			run.Notes = append(run.Notes, fmt.Sprintf("%s: NCCL wrote no file (%v)", name, errors.Unwrap(err)))
			continue
		}
		if run.Logs == nil {
			run.Logs = map[string]string{}
		}
		run.Logs[name] = tail(string(b), maxLogBytes)
	}
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[len(s)-n:]
}
