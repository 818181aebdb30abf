package rdma

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/commlab/commlab/parse/perftest"
	"github.com/commlab/commlab/probes"
	"github.com/commlab/commlab/probes/launch"
)

// PerftestKind is the probes.Run kind of a perftest run.
const PerftestKind = "perftest"

// PerftestTools are the perftest programs Perftest runs; ib_write_bw is
// the default.
var PerftestTools = []string{"ib_write_bw", "ib_read_bw", "ib_send_bw", "ib_write_lat"}

// PerftestConfig says which perftest tool to run, with what, and where its
// two sides run.
type PerftestConfig struct {
	// Tool is one of PerftestTools, by name on PATH or as a path; "" is
	// ib_write_bw.
	Tool string
	// Device is perftest's -d ("mlx5_0"); empty: perftest's first
	// device. IBPort is -i; 0: perftest's default.
	Device string
	IBPort int
	// GIDIndex is -x, the GID table index for RoCE; -1 passes none.
	GIDIndex int
	// Sizes are the message sizes (-s), one server and client pair per
	// size; none: the tool's default size (65536). All runs one pair over
	// every size from 2 bytes to 8 MiB (-a) instead.
	Sizes []int64
	All   bool
	// Iters is -n; 0: the tool's default (5000 for bandwidth, 1000 for
	// latency).
	Iters int
	// UseCUDA is the CUDA device both sides allocate their buffers on
	// (--use_cuda=N); -1: host memory.
	UseCUDA int
	// ReportGbits prints bandwidth in Gb/s (--report_gbits, bandwidth
	// tools only); the samples are GB/s either way.
	ReportGbits bool
	// Extra are further tool arguments, given to both sides.
	Extra []string
	// Listen, when set ("HOST:PORT" or ":PORT"), runs only the server
	// here, on that port. Connect, when set (HOST:PORT), runs only the
	// client here, against a server started elsewhere. Either takes at
	// most one size.
	Listen, Connect string
	// Launch, when its Launcher is set, starts the client through the
	// user's launcher while the server runs here; the client connects to
	// ServerHost (default: this host's name).
	Launch     launch.Options
	ServerHost string
	// Port is perftest's -p when both sides run here; 0 picks a free one.
	Port int
	// CacheDir is where the device check builds rdma_write ("":
	// launch.DefaultCacheDir).
	CacheDir string
	// Timeout bounds one server and client pair; 0 means 2 minutes.
	Timeout time.Duration
}

// tool is the program to run.
func (cfg PerftestConfig) tool() string {
	if cfg.Tool == "" {
		return "ib_write_bw"
	}
	return cfg.Tool
}

// bandwidth is true for the _bw tools.
func (cfg PerftestConfig) bandwidth() bool {
	return strings.HasSuffix(filepath.Base(cfg.tool()), "_bw")
}

// common are the flags both sides take for one message size (0: none).
func (cfg PerftestConfig) common(size int64, port int) []string {
	a := portFlags(cfg.Device, cfg.IBPort, cfg.GIDIndex, "-d", "-i", "-x")
	switch {
	case cfg.All:
		a = append(a, "-a")
	case size > 0:
		a = append(a, "-s", strconv.FormatInt(size, 10))
	}
	if cfg.Iters > 0 {
		a = append(a, "-n", strconv.Itoa(cfg.Iters))
	}
	if cfg.UseCUDA >= 0 {
		a = append(a, "--use_cuda="+strconv.Itoa(cfg.UseCUDA))
	}
	if cfg.ReportGbits && cfg.bandwidth() {
		a = append(a, "--report_gbits")
	}
	if port > 0 {
		a = append(a, "-p", strconv.Itoa(port))
	}
	// -F: no failure or warning over the CPU frequency governor, which
	// says nothing about the NIC.
	a = append(a, "-F")
	return append(a, cfg.Extra...)
}

// ServerArgs are the server's arguments for one message size (0: the
// tool's default) on port (0: perftest's 18515).
func (cfg PerftestConfig) ServerArgs(size int64, port int) []string { return cfg.common(size, port) }

// ClientArgs are the client's arguments against the server on host.
func (cfg PerftestConfig) ClientArgs(host string, size int64, port int) []string {
	return append(cfg.common(size, port), host)
}

// Check says whether cfg can run here: the tool is one of PerftestTools
// and on PATH (else an error wrapping probes.ErrUnavailable naming the
// perftest package), and the two-machine settings agree.
func (cfg PerftestConfig) Check() (string, error) {
	tool := cfg.tool()
	if !slices.Contains(PerftestTools, filepath.Base(tool)) {
		return "", fmt.Errorf("rdma: perftest tool %q: want one of %s", tool, strings.Join(PerftestTools, ", "))
	}
	if cfg.Listen != "" && cfg.Connect != "" {
		return "", fmt.Errorf("rdma: a run is either the server (listen %s) or the client (connect %s), not both", cfg.Listen, cfg.Connect)
	}
	if (cfg.Listen != "" || cfg.Connect != "") && len(cfg.Sizes) > 1 {
		return "", fmt.Errorf("rdma: a one-sided perftest run takes one size or All, not %d sizes", len(cfg.Sizes))
	}
	if _, err := launch.Command(cfg.Launch, tool, nil); err != nil {
		return "", fmt.Errorf("rdma: %w", err)
	}
	path, err := exec.LookPath(tool)
	if err != nil {
		return "", fmt.Errorf("rdma: %w: %s is not installed here (the perftest package ships it: apt-get install perftest)", probes.ErrUnavailable, tool)
	}
	return path, nil
}

// checkDevice is the RDMA device check Perftest makes before it starts
// the tool; tests replace it.
var checkDevice = CheckDevice

// CheckDevice says whether this machine has an RDMA device with an ACTIVE
// port (cfg's Device and IBPort, when set), the way Measure finds out:
// rdma_write's server opens the device and is stopped once it listens. An
// absent device returns rdma-write's reason, wrapping probes.ErrUnavailable.
// Where rdma_write cannot be built (no C compiler or verbs headers) it
// reads /sys/class/infiniband instead.
func CheckDevice(ctx context.Context, cfg PerftestConfig) error {
	bin, err := Build(ctx, cfg.CacheDir)
	if errors.Is(err, probes.ErrUnavailable) {
		return sysfsDevices(os.DirFS("/sys/class"))
	}
	if err != nil {
		return err
	}
	port, err := freePort()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	args := Config{Device: cfg.Device, IBPort: cfg.IBPort, GIDIndex: cfg.GIDIndex, GPU: -1, Iters: 1, Timeout: 2 * time.Second}.args()
	s, err := start(ctx, "device check", launch.Options{}, bin, append([]string{"--server", "--port", strconv.Itoa(port)}, args...))
	if err != nil {
		return err
	}
	err = waitListening(ctx, s)
	cancel()
	<-s.exited
	return err
}

// sysfsDevices is the device check without rdma_write: any entry under
// infiniband/ in sys (/sys/class).
func sysfsDevices(sys fs.FS) error {
	if ents, err := fs.ReadDir(sys, "infiniband"); err == nil && len(ents) > 0 {
		return nil
	}
	return fmt.Errorf("rdma: %w: no RDMA device (/sys/class/infiniband is empty)", probes.ErrUnavailable)
}

// Perftest runs a perftest tool (ib_write_bw by default) as cfg says: the
// server and then the client here against 127.0.0.1 (one pair per size),
// only one side (Listen, Connect), or the client through the user's
// launcher. It parses the client's report (the server's, for a
// server-only run) with parse/perftest into the run's samples, and
// records the command lines, the tool's version, the device and the
// memory (host or --use_cuda=N) in Settings and both sides' output in
// Logs. A missing tool or no RDMA device returns an error wrapping
// probes.ErrUnavailable.
func Perftest(ctx context.Context, cfg PerftestConfig) (*probes.Run, error) {
	path, err := cfg.Check()
	if err != nil {
		return nil, err
	}
	if err := checkDevice(ctx, cfg); err != nil {
		return nil, err
	}
	tool := cfg.tool()
	run := &probes.Run{Kind: PerftestKind, Date: time.Now().UTC(), Logs: map[string]string{}, Tool: "perftest " + filepath.Base(tool),
		Settings: map[string]string{"tool": path, "memory": "host"}}
	if v := perftestVersion(ctx, path); v != "" {
		run.Tool += " " + v
		run.Settings["tool_version"] = v
	}
	if cfg.UseCUDA >= 0 {
		run.Settings["memory"] = "--use_cuda=" + strconv.Itoa(cfg.UseCUDA)
	}
	if h, err := os.Hostname(); err == nil {
		run.Host = h
	}
	sizes := cfg.Sizes
	if cfg.All || len(sizes) == 0 {
		sizes = []int64{0}
	}
	var errs []error
	for _, size := range sizes {
		suffix := ""
		if len(sizes) > 1 {
			suffix = " " + strconv.FormatInt(size, 10)
		}
		if err := perftestPair(ctx, cfg, tool, size, suffix, run); err != nil {
			errs = append(errs, err)
			break
		}
	}
	if cfg.Listen != "" {
		run.Notes = append(run.Notes, "server side only: the client on the other machine ran the test")
	}
	_, perr := PerftestReparse(run)
	if len(errs) > 0 {
		return run, errs[0]
	}
	return run, perr
}

// PerftestDefaultPort is the TCP port perftest's tools use when none is
// given (-p 18515); a dry run names it where a real run would pick a free
// port.
const PerftestDefaultPort = 18515

// PerftestCommands are the command lines a run of cfg would start for one
// size, without starting them: the server's, unless cfg.Connect names a
// server on another machine, and the client's (through cfg.Launch when the
// server runs here too), unless cfg.Listen makes this the server only. A
// server started here listens on cfg.Listen's port, else cfg.Port, else
// PerftestDefaultPort.
func PerftestCommands(cfg PerftestConfig, size int64) (server, client []string, err error) {
	tool := cfg.tool()
	connect := cfg.Connect
	if connect == "" {
		port := cfg.Port
		if port == 0 && cfg.Listen == "" {
			port = PerftestDefaultPort
		}
		if port, err = serverPort(cfg.Listen, port); err != nil {
			return nil, nil, err
		}
		server = append([]string{tool}, cfg.ServerArgs(size, port)...)
		connect = net.JoinHostPort(serverHost(Config{ServerHost: cfg.ServerHost, Launch: cfg.Launch}), strconv.Itoa(port))
	}
	if cfg.Listen != "" {
		return server, nil, nil
	}
	host, port, err := connectAddress(connect)
	if err != nil {
		return nil, nil, err
	}
	o := launch.Options{}
	if server != nil {
		o = cfg.Launch
	}
	client, err = launch.Command(o, tool, cfg.ClientArgs(host, size, port))
	return server, client, err
}

// connectAddress splits a client's HOST:PORT.
func connectAddress(connect string) (string, int, error) {
	host, p, err := net.SplitHostPort(connect)
	if err != nil {
		return "", 0, fmt.Errorf("rdma: connect address %q: want HOST:PORT", connect)
	}
	port, err := strconv.Atoi(p)
	if err != nil || port <= 0 || port > 65535 {
		return "", 0, fmt.Errorf("rdma: connect address %q: bad port", connect)
	}
	return host, port, nil
}

// perftestPair runs one server and client pair (or one side) for one
// size, keeping the logs as "server"+suffix and "client"+suffix.
func perftestPair(ctx context.Context, cfg PerftestConfig, tool string, size int64, suffix string, run *probes.Run) error {
	t := cfg.Timeout
	if t <= 0 {
		t = 2 * time.Minute
	}
	ctx, cancel := context.WithTimeout(ctx, t)
	defer cancel()
	var server *side
	connect := cfg.Connect
	if connect == "" {
		port, err := serverPort(cfg.Listen, cfg.Port)
		if err != nil {
			return err
		}
		connect = net.JoinHostPort(serverHost(Config{ServerHost: cfg.ServerHost, Launch: cfg.Launch}), strconv.Itoa(port))
		if server, err = startTool(ctx, tool+" server", launch.Options{}, tool, cfg.ServerArgs(size, port)); err != nil {
			return err
		}
		run.Settings["server_command"+suffix] = launch.ShellJoin(server.p.Cmdline)
	}
	var cerr error
	if cfg.Listen == "" {
		host, port, err := connectAddress(connect)
		if err != nil {
			return err
		}
		o := launch.Options{}
		if server != nil {
			o = cfg.Launch
		}
		var out string
		out, cerr = runClient(ctx, o, tool, cfg.ClientArgs(host, size, port), server, run, suffix)
		run.Logs["client"+suffix] = out
		if cerr != nil {
			cancel() // the server would wait for a client that is gone
		}
	}
	if server != nil {
		serr := server.wait()
		run.Logs["server"+suffix] = server.stdout.String() + server.stderr.String()
		if cerr == nil && serr != nil {
			if ctx.Err() != nil {
				serr = fmt.Errorf("rdma: %s server: no client within %v: %w", tool, t, ctx.Err())
			}
			cerr = serr
		}
	}
	return cerr
}

// runClient starts the client, and starts it again while it cannot reach
// a server that is still starting (perftest's client tries once; the
// server's "Waiting for client" line sits in its pipe's buffer).
func runClient(ctx context.Context, o launch.Options, tool string, args []string, server *side, run *probes.Run, suffix string) (string, error) {
	for {
		c, err := startTool(ctx, tool+" client", o, tool, args)
		if err != nil {
			return "", err
		}
		run.Settings["client_command"+suffix] = launch.ShellJoin(c.p.Cmdline)
		err = c.wait()
		out := c.stdout.String() + c.stderr.String()
		if err == nil || !strings.Contains(out, "Couldn't connect") {
			return out, err
		}
		if server != nil {
			select {
			case <-server.exited:
				return out, err
			default:
			}
		}
		select {
		case <-ctx.Done():
			return out, fmt.Errorf("rdma: %s client: no server to connect to: %w", tool, ctx.Err())
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// startTool starts one side of a perftest tool and a goroutine that waits
// for it.
func startTool(ctx context.Context, name string, o launch.Options, bin string, args []string) (*side, error) {
	return startSide(ctx, name, o, bin, args, toolExit)
}

// toolExit turns a perftest side's exit into an error, with the last line
// it printed (perftest reports some failures on stdout).
func toolExit(s *side, code int, err error) error {
	switch {
	case err != nil:
		return fmt.Errorf("rdma: %s: %w", s.name, err)
	case code != 0:
		msg := launch.LastLine(s.stderr.String())
		if msg == "" {
			msg = launch.LastLine(s.stdout.String())
		}
		if msg == "" {
			msg = "no message"
		}
		return fmt.Errorf("rdma: %s exited with status %d: %s", s.name, code, msg)
	}
	return nil
}

// perftestVersion is what "tool --version" prints ("6.10"), or "".
func perftestVersion(ctx context.Context, path string) string {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, "--version").Output()
	if err != nil {
		return ""
	}
	for _, l := range strings.Split(string(out), "\n") {
		l = strings.TrimSpace(l)
		l = strings.TrimSpace(strings.TrimPrefix(l, "Version:"))
		if l != "" {
			return l
		}
	}
	return ""
}

// PerftestReparse parses the reports a perftest run kept in its Logs (the
// clients' "client" or "client SIZE", else the servers') and sets the
// run's samples from them, and the device facts in Settings; a run saved
// before a parser fix gains what the fix reads. It returns the reports.
func PerftestReparse(run *probes.Run) ([]*perftest.Report, error) {
	side := "client"
	keys := logKeys(run, side)
	if len(keys) == 0 {
		side = "server"
		keys = logKeys(run, side)
	}
	run.Samples = nil
	var reps []*perftest.Report
	var first error
	for _, k := range keys {
		rep, err := perftest.Parse(strings.NewReader(run.Logs[k]))
		if err != nil && first == nil {
			first = fmt.Errorf("rdma: %s report: %w", k, err)
		}
		if rep == nil {
			continue
		}
		reps = append(reps, rep)
		perftestSettings(run, rep)
		run.Samples = append(run.Samples, PerftestSamples(rep, cudaDevice(run))...)
	}
	if len(keys) == 0 && first == nil {
		first = errors.New("rdma: the run kept no perftest output")
	}
	return reps, first
}

// logKeys are run's log names "side" and "side SIZE", by size.
func logKeys(run *probes.Run, side string) []string {
	var keys []string
	for k := range run.Logs {
		if k == side || strings.HasPrefix(k, side+" ") {
			keys = append(keys, k)
		}
	}
	size := func(k string) int64 {
		n, _ := strconv.ParseInt(strings.TrimPrefix(k, side+" "), 10, 64)
		return n
	}
	sort.Slice(keys, func(i, j int) bool { return size(keys[i]) < size(keys[j]) })
	return keys
}

// cudaDevice is the run's --use_cuda device, or -1.
func cudaDevice(run *probes.Run) int {
	if n, ok := strings.CutPrefix(run.Settings["memory"], "--use_cuda="); ok {
		if d, err := strconv.Atoi(n); err == nil {
			return d
		}
	}
	return -1
}

// perftestSettings copies the report's device facts into the run.
func perftestSettings(run *probes.Run, rep *perftest.Report) {
	if run.Settings == nil {
		run.Settings = map[string]string{}
	}
	set := func(k, v string) {
		if v != "" {
			run.Settings[k] = v
		}
	}
	set("test", rep.Title)
	set("device", rep.Device)
	set("link_type", rep.LinkType)
	set("connection_type", rep.ConnectionType)
	set("unit", rep.Unit)
	set("cuda_device_name", rep.CUDADeviceName)
	if rep.MTU > 0 {
		set("mtu", strconv.Itoa(rep.MTU))
	}
	if rep.GIDIndex >= 0 {
		set("gid_index", strconv.Itoa(rep.GIDIndex))
	}
}

// PerftestSamples turns a perftest report into samples: a bandwidth row
// gives its average in GB/s (1e9 bytes/s) as AlgBW and BusBW, and the time
// one message takes at that rate as MedianUS (at the peak rate as MinUS);
// a latency row gives its typical, minimum and maximum times (in the
// report's unit, usec unless -C). cuda is the --use_cuda device, -1 for
// host memory; it is Src and Dst, and the label says "host" or "cuda:N".
func PerftestSamples(rep *perftest.Report, cuda int) []probes.Sample {
	label := "host"
	if cuda >= 0 {
		label = "cuda:" + strconv.Itoa(cuda)
	}
	var out []probes.Sample
	for _, b := range rep.Bandwidth {
		s := probes.Sample{Op: "rdma_" + rep.Verb + "_bw", Bytes: b.Bytes, Iters: int(b.Iterations), Src: cuda, Dst: cuda, Ranks: 2, Wrong: -1, Label: label}
		if b.Side != "" {
			s.Label += " " + b.Side
		}
		if b.AverageBytesPerSecond > 0 {
			s.AlgBW = b.AverageBytesPerSecond / 1e9
			s.BusBW = s.AlgBW
			s.MedianUS = float64(b.Bytes) / b.AverageBytesPerSecond * 1e6
			s.MaxUS = s.MedianUS
			s.MinUS = s.MedianUS
		}
		if b.PeakBytesPerSecond > 0 {
			s.MinUS = float64(b.Bytes) / b.PeakBytesPerSecond * 1e6
		}
		out = append(out, s)
	}
	for _, l := range rep.Latency {
		s := probes.Sample{Op: "rdma_" + rep.Verb + "_lat", Bytes: l.Bytes, Iters: int(l.Iterations), Src: cuda, Dst: cuda, Ranks: 2, Wrong: -1, Label: label,
			MedianUS: l.Typical, MinUS: l.Min, MaxUS: l.Max}
		if l.Duration {
			s.MedianUS, s.MinUS, s.MaxUS = l.Average, l.Average, l.Average
		}
		if rep.LatencyUnit != "" && rep.LatencyUnit != "usec" {
			s.Label += " unit=" + rep.LatencyUnit
		}
		out = append(out, s)
	}
	return out
}
