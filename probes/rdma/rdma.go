package rdma

import (
	"context"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/commlab/commlab/probes"
	"github.com/commlab/commlab/probes/launch"
)

// Kind is the probes.Run kind of an rdma_write run.
const Kind = "rdma-write"

// exitUnavailable is rdma_write's exit status for "no RDMA device, no
// active port, no GPU memory".
const exitUnavailable = 3

// Config says what to measure and where the two sides run.
type Config struct {
	// Device is the RDMA device name ("mlx5_0"); empty: the first device
	// with an ACTIVE port. IBPort is its port; 0: the first ACTIVE one.
	Device string
	IBPort int
	// GIDIndex is the GID table index for RoCE (show_gids lists them); -1
	// routes InfiniBand by LID and, on RoCE, lets the program choose as NCCL
	// does: RoCE v2 with an IPv4 address, read from sysfs.
	GIDIndex int
	// Sizes are the write sizes in bytes; Iters writes are timed per size
	// after Warmup untimed ones.
	Sizes         []int64
	Iters, Warmup int
	// GPU is the CUDA device whose memory both sides register; -1: host
	// memory.
	GPU int
	// OOBOnly runs the out-of-band exchange alone, without a device.
	OOBOnly bool
	// Listen, when set ("HOST:PORT" or ":PORT"), runs only the server
	// here, on that port, for a client on another machine.
	Listen string
	// Connect, when set (HOST:PORT), runs only the client here, against a
	// server started elsewhere with Listen.
	Connect string
	// Launch, when its Launcher is set, starts the client through the
	// user's launcher (mpirun, srun: its hostfile or node count picks the
	// remote machine) while the server runs here; the client connects to
	// ServerHost (default: this host's name). The built program's path
	// must then exist on the remote machine too (a shared home or
	// CacheDir).
	Launch     launch.Options
	ServerHost string
	// Port is the TCP port of the out-of-band exchange when both sides
	// are started here; 0 picks a free one.
	Port int
	// CacheDir is where Build puts the program ("" : launch.DefaultCacheDir).
	CacheDir string
	// Timeout bounds the client's wait for the server, and each side's
	// wait for the other's messages; 0 means 30 s.
	Timeout time.Duration
}

// args are rdma_write's flags for cfg, common to both sides.
func (cfg Config) args() []string {
	a := portFlags(cfg.Device, cfg.IBPort, cfg.GIDIndex, "--device", "--ib-port", "--gid-index")
	if len(cfg.Sizes) > 0 {
		s := make([]string, len(cfg.Sizes))
		for i, v := range cfg.Sizes {
			s[i] = strconv.FormatInt(v, 10)
		}
		a = append(a, "--sizes", strings.Join(s, ","))
	}
	a = append(a, "--iters", strconv.Itoa(probes.PositiveOr(cfg.Iters, 1000)))
	if cfg.Warmup >= 0 {
		a = append(a, "--warmup", strconv.Itoa(cfg.Warmup))
	}
	if cfg.GPU >= 0 {
		a = append(a, "--gpu", strconv.Itoa(cfg.GPU))
	}
	if cfg.OOBOnly {
		a = append(a, "--oob-only")
	}
	t := cfg.Timeout
	if t <= 0 {
		t = 30 * time.Second
	}
	return append(a, "--timeout", strconv.Itoa(max(1, int(t.Round(time.Second)/time.Second))))
}

// portFlags name the RDMA port a program opens, in the program's own
// flags: the device (empty: the program's choice), the port number (0:
// likewise) and the GID index (-1: none).
func portFlags(device string, ibPort, gidIndex int, deviceFlag, portFlag, gidFlag string) []string {
	var a []string
	if device != "" {
		a = append(a, deviceFlag, device)
	}
	if ibPort > 0 {
		a = append(a, portFlag, strconv.Itoa(ibPort))
	}
	if gidIndex >= 0 {
		a = append(a, gidFlag, strconv.Itoa(gidIndex))
	}
	return a
}

// side is one running rdma_write: its process, its captured output, and
// its exit once it ended.
type side struct {
	name           string
	p              *launch.Process
	stdout, stderr launch.SyncBuffer
	exited         chan struct{}
	err            error
}

// start starts one side of rdma_write and a goroutine that waits for it.
func start(ctx context.Context, name string, o launch.Options, bin string, args []string) (*side, error) {
	return startSide(ctx, name, o, bin, args, (*side).exit)
}

// startSide starts one side of a two-sided program and a goroutine that
// waits for it and keeps what exit makes of its end.
func startSide(ctx context.Context, name string, o launch.Options, bin string, args []string, exit func(s *side, code int, err error) error) (*side, error) {
	s := &side{name: name, exited: make(chan struct{})}
	var err error
	if s.p, err = launch.Start(ctx, o, bin, args, &s.stdout, &s.stderr); err != nil {
		return nil, fmt.Errorf("rdma: %s: %w", name, err)
	}
	go func() {
		defer close(s.exited)
		code, err := s.p.Wait()
		s.err = exit(s, code, err)
	}()
	return s, nil
}

// serverPort is the port a server started here listens on: listen's
// ("HOST:PORT" or ":PORT") when set, else port, else a free one.
func serverPort(listen string, port int) (int, error) {
	if listen != "" {
		_, p, err := net.SplitHostPort(listen)
		if err != nil {
			return 0, fmt.Errorf("rdma: listen address %q: want HOST:PORT or :PORT", listen)
		}
		if port, err = strconv.Atoi(p); err != nil || port <= 0 || port > 65535 {
			return 0, fmt.Errorf("rdma: listen address %q: bad port", listen)
		}
		return port, nil
	}
	if port == 0 {
		return freePort()
	}
	return port, nil
}

// wait waits for the side to end and returns what its exit means.
func (s *side) wait() error {
	<-s.exited
	return s.err
}

// exit turns the side's exit into an error: status 3 wraps
// probes.ErrUnavailable with the program's reason.
func (s *side) exit(code int, err error) error {
	switch {
	case err != nil:
		return fmt.Errorf("rdma: %s: %w", s.name, err)
	case code == exitUnavailable:
		return errUnavailable(s.stderr.String())
	case code != 0:
		msg := launch.LastLine(s.stderr.String())
		if msg == "" {
			msg = "no message"
		}
		return fmt.Errorf("rdma: %s exited with status %d: %s", s.name, code, msg)
	}
	return nil
}

// Measure builds the program and runs it as cfg says: both sides here (the
// default, a loopback through the NIC), only the server (Listen), only the
// client (Connect), or the client through the user's launcher. The run
// holds the client's samples (none for a server-only run), the device
// facts the program printed as Settings, and both sides' output as Logs.
// No RDMA device returns an error wrapping probes.ErrUnavailable.
func Measure(ctx context.Context, cfg Config) (*probes.Run, error) {
	bin, err := Build(ctx, cfg.CacheDir)
	if err != nil {
		return nil, err
	}
	return MeasureWith(ctx, bin, cfg)
}

// MeasureWith is Measure with an already built program.
func MeasureWith(ctx context.Context, bin string, cfg Config) (*probes.Run, error) {
	if cfg.Listen != "" && cfg.Connect != "" {
		return nil, fmt.Errorf("rdma: a run is either the server (listen %s) or the client (connect %s), not both", cfg.Listen, cfg.Connect)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	common := cfg.args()
	run := &probes.Run{Kind: Kind, Date: time.Now().UTC(), Logs: map[string]string{}, Tool: "commlab " + Program.Name + " " + Program.Hash(),
		Settings: map[string]string{"program": bin, "source_sha256": Program.Hash(),
			"timing": "wall clock (CLOCK_MONOTONIC) from the first post to the last completion of iters signaled RDMA WRITEs, at most 128 in flight; one sample per size"}}
	if h, err := os.Hostname(); err == nil {
		run.Host = h
	}
	var server, client *side
	if cfg.Connect == "" {
		port, err := serverPort(cfg.Listen, cfg.Port)
		if err != nil {
			return nil, err
		}
		cfg.Connect = net.JoinHostPort(serverHost(cfg), strconv.Itoa(port))
		if server, err = start(ctx, "server", launch.Options{}, bin, append([]string{"--server", "--port", strconv.Itoa(port)}, common...)); err != nil {
			return nil, err
		}
		run.Settings["server_command"] = launch.ShellJoin(server.p.Cmdline)
		// The server opens the device before it listens: an absent device
		// ends it here, before a client is started.
		if err := waitListening(ctx, server); err != nil {
			run.Logs["server"] = server.stdout.String() + server.stderr.String()
			return nil, err
		}
	}
	if cfg.Listen == "" {
		host, port, err := net.SplitHostPort(cfg.Connect)
		if err != nil {
			return nil, fmt.Errorf("rdma: connect address %q: want HOST:PORT", cfg.Connect)
		}
		o := launch.Options{}
		if server != nil {
			o = cfg.Launch
		}
		if client, err = start(ctx, "client", o, bin, append([]string{"--connect", host, "--port", port}, common...)); err != nil {
			return nil, err
		}
		run.Settings["client_command"] = launch.ShellJoin(client.p.Cmdline)
	}
	var errs []error
	if client != nil {
		cerr := client.wait()
		run.Logs["client"] = client.stdout.String() + client.stderr.String()
		if cerr != nil {
			errs = append(errs, cerr)
			cancel() // the server would wait for a client that is gone
		}
	}
	if server != nil {
		serr := server.wait()
		run.Logs["server"] = server.stdout.String() + server.stderr.String()
		if serr != nil && len(errs) == 0 {
			errs = append(errs, serr)
		}
	}
	measured := client
	if measured == nil {
		measured = server
		run.Notes = append(run.Notes, "server side only: the client on the other machine timed the writes")
	}
	out, perr := Parse(measured.stdout.String())
	for k, v := range out.Info {
		if k != "listening" {
			run.Settings[k] = v
		}
	}
	src, label := -1, "host"
	if cfg.GPU >= 0 {
		src, label = cfg.GPU, "gpu"
		if m := out.Info["memory"]; m != "" {
			label = m
		}
	}
	for _, r := range out.Results {
		run.Samples = append(run.Samples, r.Sample(src, src, label))
	}
	run.Settings["iters"] = strconv.Itoa(probes.PositiveOr(cfg.Iters, 1000))
	run.Settings["warmup"] = strconv.Itoa(max(cfg.Warmup, 0))
	if len(errs) > 0 {
		return run, errs[0]
	}
	if perr != nil {
		return run, perr
	}
	return run, nil
}

// serverHost is the host a client started here or by the launcher
// connects to.
func serverHost(cfg Config) string {
	if cfg.ServerHost != "" {
		return cfg.ServerHost
	}
	if cfg.Launch.Launcher != "" && cfg.Launch.Launcher != "none" {
		if h, err := os.Hostname(); err == nil {
			return h
		}
	}
	return "127.0.0.1"
}

// waitListening waits until the server prints "info listening", or exits.
func waitListening(ctx context.Context, s *side) error {
	for !strings.Contains(s.stdout.String(), "info listening") {
		select {
		case <-s.exited:
			if strings.Contains(s.stdout.String(), "info listening") {
				return nil
			}
			if s.err != nil {
				return s.err
			}
			return fmt.Errorf("rdma: server exited before listening")
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
	return nil
}

// freePort asks the kernel for a free TCP port on loopback.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("rdma: find a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
