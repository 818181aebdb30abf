package conn

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/commlab/commlab/kernel/wire"
	"github.com/go-zeromq/zmq4"
)

// Channel names one of the sockets a message is sent on.
type Channel int

// The channels a kernel sends on. The heartbeat is served internally.
const (
	Shell Channel = iota
	Control
	Stdin
	IOPub
	numChannels
)

func (ch Channel) String() string {
	switch ch {
	case Shell:
		return "shell"
	case Control:
		return "control"
	case Stdin:
		return "stdin"
	case IOPub:
		return "iopub"
	}
	return "channel(" + strconv.Itoa(int(ch)) + ")"
}

var (
	// ErrClosed reports a Send after Close.
	ErrClosed = errors.New("conn: closed")
	// ErrNoRoute reports a shell, control or stdin message without the
	// identities that tell the ROUTER socket which client gets it.
	ErrNoRoute = errors.New("conn: message has no identities to route it")
)

// inboxSize bounds how many decoded requests wait per channel before the
// socket reader blocks; requests are handled one at a time anyway.
const inboxSize = 64

// Conn is a kernel's set of bound sockets. Its methods are safe for
// concurrent use.
type Conn struct {
	info   Info
	signer *wire.Signer
	logger *slog.Logger

	ctx    context.Context
	cancel context.CancelFunc

	socks  [numChannels]zmq4.Socket
	hb     zmq4.Socket
	sendMu [numChannels]sync.Mutex
	inbox  [IOPub]chan wire.Message // shell, control, stdin

	wg        sync.WaitGroup
	closed    atomic.Bool
	closeOnce sync.Once
	closeErr  error
}

// Open binds the five sockets the connection info names and starts
// receiving. A port of 0 binds a free port (tcp) or the first free file
// suffix (ipc); Info reports the ports chosen. The sockets live until Close
// or until ctx is cancelled.
func Open(ctx context.Context, info Info, logger *slog.Logger) (*Conn, error) {
	if err := info.validate(); err != nil {
		return nil, err
	}
	signer, err := wire.NewSigner(info.SignatureScheme, []byte(info.Key))
	if err != nil {
		return nil, fmt.Errorf("conn: %w", err)
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	registerTransports()
	ctx, cancel := context.WithCancel(ctx)
	c := &Conn{info: info, signer: signer, logger: logger, ctx: ctx, cancel: cancel}
	zlog := zmq4.WithLogger(slog.NewLogLogger(logger.Handler(), slog.LevelWarn))

	binds := []struct {
		name string
		port *int
		sock *zmq4.Socket
		make func(context.Context, ...zmq4.Option) zmq4.Socket
	}{
		{"shell", &c.info.ShellPort, &c.socks[Shell], zmq4.NewRouter},
		{"control", &c.info.ControlPort, &c.socks[Control], zmq4.NewRouter},
		{"stdin", &c.info.StdinPort, &c.socks[Stdin], zmq4.NewRouter},
		{"iopub", &c.info.IOPubPort, &c.socks[IOPub], zmq4.NewPub},
		{"heartbeat", &c.info.HBPort, &c.hb, zmq4.NewRouter},
	}
	for _, b := range binds {
		s := b.make(ctx, zlog)
		port, err := c.bind(s, *b.port)
		if err != nil {
			s.Close()
			c.Close()
			return nil, fmt.Errorf("conn: bind %s: %w", b.name, err)
		}
		*b.port = port
		*b.sock = s
	}
	for ch := range c.inbox {
		c.inbox[ch] = make(chan wire.Message, inboxSize)
		c.wg.Add(1)
		go c.receive(Channel(ch))
	}
	c.wg.Add(1)
	go c.echoHeartbeats()
	go func() {
		<-ctx.Done()
		c.Close()
	}()
	logger.Debug("conn: sockets bound", "transport", c.info.Transport, "ip", c.info.IP,
		"shell", c.info.ShellPort, "control", c.info.ControlPort, "stdin", c.info.StdinPort,
		"iopub", c.info.IOPubPort, "hb", c.info.HBPort)
	return c, nil
}

// bind listens on the endpoint for port and returns the port bound.
func (c *Conn) bind(s zmq4.Socket, port int) (int, error) {
	if c.info.Transport == "ipc" {
		if port == 0 {
			port = freeIPCSuffix(c.info.IP)
		}
		return port, s.Listen(schemeIPC + "://" + c.info.IP + "-" + strconv.Itoa(port))
	}
	if err := s.Listen(schemeTCP + "://" + net.JoinHostPort(c.info.IP, strconv.Itoa(port))); err != nil {
		return 0, err
	}
	if addr, ok := s.Addr().(*net.TCPAddr); ok {
		port = addr.Port
	}
	return port, nil
}

// ipcSuffixes hands out ipc suffixes within this process, so sockets opened
// together never race for the same file.
var ipcSuffixes struct {
	sync.Mutex
	next int
}

// freeIPCSuffix returns the first suffix n for which the file ip-n does not
// exist, as jupyter_client does when it picks ipc "ports".
func freeIPCSuffix(ip string) int {
	ipcSuffixes.Lock()
	defer ipcSuffixes.Unlock()
	for {
		ipcSuffixes.next++
		if _, err := os.Stat(ip + "-" + strconv.Itoa(ipcSuffixes.next)); errors.Is(err, os.ErrNotExist) {
			return ipcSuffixes.next
		}
	}
}

// receive decodes messages from one ROUTER socket onto its inbox until the
// connection closes. Messages that fail to decode or verify are dropped.
func (c *Conn) receive(ch Channel) {
	defer c.wg.Done()
	defer close(c.inbox[ch])
	sock := c.socks[ch]
	for {
		zm, err := sock.Recv()
		if err != nil {
			if c.ctx.Err() != nil {
				return
			}
			c.logger.Warn("conn: receive failed", "channel", ch.String(), "err", err)
			time.Sleep(10 * time.Millisecond) // do not spin on a persistent error
			continue
		}
		m, err := c.signer.Decode(zm.Frames)
		if err != nil {
			c.logger.Warn("conn: dropped message", "channel", ch.String(), "frames", len(zm.Frames), "err", err)
			continue
		}
		select {
		case c.inbox[ch] <- m:
		case <-c.ctx.Done():
			return
		}
	}
}

// echoHeartbeats sends every heartbeat message back to its sender, on its
// own goroutine so a busy kernel still answers.
func (c *Conn) echoHeartbeats() {
	defer c.wg.Done()
	for {
		zm, err := c.hb.Recv()
		if err != nil {
			if c.ctx.Err() != nil {
				return
			}
			c.logger.Warn("conn: heartbeat receive failed", "err", err)
			time.Sleep(10 * time.Millisecond)
			continue
		}
		if err := c.hb.Send(zm); err != nil && c.ctx.Err() == nil {
			c.logger.Warn("conn: heartbeat echo failed", "err", err)
		}
	}
}

// Shell delivers verified shell requests; it is closed by Close.
func (c *Conn) Shell() <-chan wire.Message { return c.inbox[Shell] }

// Control delivers verified control requests; it is closed by Close.
func (c *Conn) Control() <-chan wire.Message { return c.inbox[Control] }

// Stdin delivers verified stdin replies (input_reply); it is closed by Close.
func (c *Conn) Stdin() <-chan wire.Message { return c.inbox[Stdin] }

// Send signs m and sends it on ch. Shell, control and stdin messages go to
// the client named by m.Identities (a reply copies the request's). On iopub
// the identities are the PUB topic; without them the topic is
// "kernel.<session>.<msg_type>", as ipykernel's. Clients subscribe to all.
func (c *Conn) Send(ch Channel, m wire.Message) error {
	if ch < 0 || ch >= numChannels {
		return fmt.Errorf("conn: send on unknown %s", ch)
	}
	if c.closed.Load() {
		return fmt.Errorf("conn: send %s on %s: %w", m.Header.MsgType, ch, ErrClosed)
	}
	if ch != IOPub && len(m.Identities) == 0 {
		return fmt.Errorf("conn: send %s on %s: %w", m.Header.MsgType, ch, ErrNoRoute)
	}
	frames, err := c.signer.Encode(m)
	if err != nil {
		return fmt.Errorf("conn: send on %s: %w", ch, err)
	}
	if ch == IOPub && len(m.Identities) == 0 {
		frames = append([][]byte{[]byte("kernel." + m.Header.Session + "." + m.Header.MsgType)}, frames...)
	}
	c.sendMu[ch].Lock()
	defer c.sendMu[ch].Unlock()
	send := c.socks[ch].Send
	if ch == IOPub {
		send = c.socks[ch].SendMulti // PUB keeps the multipart mark: one writev per message
	}
	if err := send(zmq4.NewMsgFrom(frames...)); err != nil {
		return fmt.Errorf("conn: send %s on %s: %w", m.Header.MsgType, ch, err)
	}
	return nil
}

// Info returns the connection info with the ports actually bound.
func (c *Conn) Info() Info { return c.info }

// Signer returns the signer built from the connection info's key.
func (c *Conn) Signer() *wire.Signer { return c.signer }

// Close closes every socket, waits for the receiving goroutines to end and
// closes the Shell, Control and Stdin channels. It is safe to call twice.
func (c *Conn) Close() error {
	c.closeOnce.Do(func() {
		c.closed.Store(true)
		c.cancel()
		var errs []error
		for _, s := range append(c.socks[:], c.hb) {
			if s != nil {
				errs = append(errs, s.Close())
			}
		}
		c.wg.Wait()
		if err := errors.Join(errs...); err != nil {
			c.closeErr = fmt.Errorf("conn: close: %w", err)
		}
	})
	return c.closeErr
}
