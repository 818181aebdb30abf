package kernel

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/commlab/commlab/kernel/conn"
	"github.com/commlab/commlab/kernel/display"
	"github.com/commlab/commlab/kernel/session"
	"github.com/commlab/commlab/kernel/widget"
	"github.com/commlab/commlab/kernel/wire"
)

// Options configure a kernel.
type Options struct {
	// Version is reported as implementation_version.
	Version string
	// Session is what every session starts with: the packages cells
	// can import and the renderers of their types (Packages,
	// Renderers; the commlab command hands package cells' view). The kernel sets the session's I/O
	// fields itself.
	Session session.Options
	// Logger receives the kernel's own log; nil discards it.
	Logger *slog.Logger
}

// Kernel serves one Jupyter connection.
type Kernel struct {
	opts      Options
	conn      *conn.Conn
	log       *slog.Logger
	sessionID string

	sess      *session.Session
	sessReady chan struct{}
	sessErr   error

	mu           sync.Mutex
	cancelCell   context.CancelFunc // interrupts the running cell
	lastExecute  *wire.Message      // parent of output that arrives between cells
	parent       *wire.Message      // request being handled, for widget messages
	controlComms map[string]bool    // open jupyter.widget.control comms
	capture      *[]map[string]any  // outputs a widget is capturing, if any
	stdinReq     *wire.Message      // the execute_request whose cell may ask for input
	stdinCancel  chan struct{}
	idleSent     map[string]bool // requests being handled whose idle is out

	shutdown chan bool // true: restart requested
}

// Run serves the connection described by the connection file until a
// shutdown_request or ctx ends. It returns nil on a clean shutdown.
func Run(ctx context.Context, connectionFile string, opts Options) error {
	info, err := conn.ReadInfo(connectionFile)
	if err != nil {
		return fmt.Errorf("kernel: %w", err)
	}
	return Serve(ctx, info, opts)
}

// Serve is Run with the connection info already read.
func Serve(ctx context.Context, info conn.Info, opts Options) error {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	c, err := conn.Open(ctx, info, log)
	if err != nil {
		return fmt.Errorf("kernel: %w", err)
	}
	defer c.Close()
	return serve(ctx, c, opts, log)
}

// serve answers requests on an open connection.
func serve(ctx context.Context, c *conn.Conn, opts Options, log *slog.Logger) error {
	k := &Kernel{opts: opts, conn: c, log: log, sessionID: newSessionID(), sessReady: make(chan struct{}), shutdown: make(chan bool, 1), controlComms: map[string]bool{}}
	widget.SetTransport(widgetTransport{k})
	defer widget.SetTransport(nil)
	// The interpreter starts while the first kernel_info is answered.
	go func() {
		so := opts.Session
		so.CaptureProcessOutput, so.Stdin, so.Background = true, k.readInput, k.background
		k.sess, k.sessErr = session.New(so)
		if k.sessErr != nil {
			log.Error("kernel: session did not start", "err", k.sessErr)
		}
		close(k.sessReady)
	}()
	sigint := make(chan os.Signal, 1)
	signal.Notify(sigint, syscall.SIGINT)
	defer signal.Stop(sigint)
	orphaned := watchParentProcess(log)

	go k.serveControl()
	go k.serveShell()
	for {
		select {
		case <-ctx.Done():
			k.closeSession()
			return nil
		case <-sigint:
			log.Info("kernel: SIGINT: interrupting the running cell")
			k.interrupt()
		case <-orphaned:
			log.Warn("kernel: the process that started the kernel is gone; exiting")
			k.interrupt()
			k.closeSession()
			return nil
		case restart := <-k.shutdown:
			log.Info("kernel: shutdown", "restart", restart)
			k.interrupt()
			k.closeSession()
			// zmq4 drops what PUB still queues at Close: let the idle
			// status that ends the shutdown request go out first.
			time.Sleep(100 * time.Millisecond)
			return nil
		}
	}
}

// closeSession gives the process its descriptors back; a session still
// starting is left to the process's exit.
func (k *Kernel) closeSession() {
	select {
	case <-k.sessReady:
		if k.sess != nil {
			k.sess.Close()
		}
	default:
	}
}

// waitSession returns the session once it has started.
func (k *Kernel) waitSession() (*session.Session, error) {
	<-k.sessReady
	return k.sess, k.sessErr
}

// requestSession decodes a request's content into req and waits for the
// session; when either fails it answers with an error reply of replyType
// and returns nil.
func (k *Kernel) requestSession(ch conn.Channel, msg wire.Message, replyType string, req any) *session.Session {
	if err := json.Unmarshal(msg.Content, req); err != nil {
		k.reply(ch, msg, replyType, newErrorReply("BadRequest", msg.Header.MsgType+" content: "+err.Error(), 0))
		return nil
	}
	sess, err := k.waitSession()
	if err != nil {
		k.reply(ch, msg, replyType, newErrorReply("KernelError", err.Error(), 0))
		return nil
	}
	return sess
}

func (k *Kernel) serveShell() {
	for msg := range k.conn.Shell() {
		k.handle(conn.Shell, msg)
	}
}

func (k *Kernel) serveControl() {
	for msg := range k.conn.Control() {
		k.handle(conn.Control, msg)
	}
}

// handle answers one request, between busy and idle on iopub; the idle
// goes out before the reply (reply).
func (k *Kernel) handle(ch conn.Channel, msg wire.Message) {
	start := time.Now()
	k.publishStatus(msg, "busy")
	defer func() {
		// A bug in a handler must not end the kernel: log it, answer
		// with an error, and go on serving.
		if r := recover(); r != nil {
			k.log.Error("kernel: handler panicked", "msg_type", msg.Header.MsgType, "panic", r)
			if reply, ok := strings.CutSuffix(msg.Header.MsgType, "_request"); ok {
				k.reply(ch, msg, reply+"_reply", newErrorReply("InternalError", fmt.Sprint(r), 0))
			}
		}
		k.publishIdle(msg)
		k.handled(msg)
		k.log.Debug("kernel: handled", "msg_type", msg.Header.MsgType, "channel", ch.String(), "took", time.Since(start))
	}()
	switch t := msg.Header.MsgType; t {
	case "kernel_info_request":
		k.reply(ch, msg, "kernel_info_reply", k.kernelInfo())
	case "execute_request":
		k.execute(ch, msg)
	case "complete_request":
		k.complete(ch, msg)
	case "inspect_request":
		k.inspect(ch, msg)
	case "is_complete_request":
		k.isComplete(ch, msg)
	case "history_request":
		k.history(ch, msg)
	case "comm_info_request":
		k.commInfo(ch, msg)
	case "comm_open":
		k.commOpen(msg)
	case "comm_msg":
		k.commMsg(msg)
	case "comm_close":
		k.commClose(msg)
	case "interrupt_request":
		k.interrupt()
		k.reply(ch, msg, "interrupt_reply", map[string]any{"status": "ok"})
	case "shutdown_request":
		var c struct {
			Restart bool `json:"restart"`
		}
		_ = json.Unmarshal(msg.Content, &c)
		k.reply(ch, msg, "shutdown_reply", map[string]any{"status": "ok", "restart": c.Restart})
		select {
		case k.shutdown <- c.Restart:
		default:
		}
	case "debug_request":
		k.reply(ch, msg, "debug_reply", map[string]any{"status": "error", "ename": "NotSupported", "evalue": "commlab has no debugger", "traceback": []string{}})
	default:
		k.log.Warn("kernel: unknown message type", "msg_type", t, "channel", ch.String())
	}
}

func (k *Kernel) kernelInfo() map[string]any {
	return map[string]any{
		"status":                 "ok",
		"protocol_version":       wire.ProtocolVersion,
		"implementation":         "commlab",
		"implementation_version": k.opts.Version,
		"language_info":          session.LanguageInfo(),
		"banner": "commlab " + k.opts.Version + ": Go (interpreted by yaegi) for GPU communication labs.\n" +
			"Cells mix declarations and statements; the last expression is shown. name? shows documentation.",
		"help_links": []map[string]string{
			{"text": "Go documentation", "url": "https://go.dev/doc/"},
			{"text": "Go standard library", "url": "https://pkg.go.dev/std"},
			{"text": "NCCL documentation", "url": "https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/"},
		},
		"debugger": false,
	}
}

type executeRequest struct {
	Code            string            `json:"code"`
	Silent          bool              `json:"silent"`
	StoreHistory    *bool             `json:"store_history"`
	UserExpressions map[string]string `json:"user_expressions"`
	AllowStdin      bool              `json:"allow_stdin"`
	StopOnError     *bool             `json:"stop_on_error"`
}

func (k *Kernel) execute(ch conn.Channel, msg wire.Message) {
	var req executeRequest
	sess := k.requestSession(ch, msg, "execute_reply", &req)
	if sess == nil {
		return
	}
	store := req.StoreHistory == nil || *req.StoreHistory
	if req.Silent {
		store = false
	}
	stopOnError := req.StopOnError == nil || *req.StopOnError
	count := sess.ExecutionCount()
	if store {
		count++
	}
	// The cell is interruptible from before its execute_input: a front end
	// may interrupt as soon as it sees that message, and an interrupt with
	// no cell to cancel would be lost while the cell then runs on.
	ctx, cancel := context.WithCancel(context.Background())
	k.mu.Lock()
	k.cancelCell = cancel
	k.mu.Unlock()
	if !req.Silent {
		k.publish(msg, "execute_input", map[string]any{"code": req.Code, "execution_count": count})
	}

	// `name?` and `?name` page documentation, as IPython's obj? does.
	if target, ok := helpTarget(req.Code); ok {
		k.mu.Lock()
		k.cancelCell = nil
		k.mu.Unlock()
		cancel()
		in, found := sess.Inspect(target, len(target))
		if !found {
			failure := newErrorReply("NameError", fmt.Sprintf("no documentation for %q", target), count)
			k.publish(msg, "error", errorContent{EName: failure.EName, EValue: failure.EValue, Traceback: failure.Traceback})
			k.replyError(ch, msg, failure, stopOnError && !req.Silent)
			return
		}
		page := map[string]any{"source": "page", "data": map[string]any{display.MIMEPlain: inspectionText(in)}, "start": 0}
		k.reply(ch, msg, "execute_reply", executeReply{ExecutionCount: count, Payload: []any{page}, Status: "ok", UserExpressions: map[string]any{}})
		return
	}

	k.mu.Lock()
	k.lastExecute = &msg
	k.parent = &msg
	if req.AllowStdin {
		k.stdinReq = &msg
	} else {
		k.stdinReq = nil
	}
	k.stdinCancel = make(chan struct{})
	k.mu.Unlock()
	var failure *session.Event
	emit := k.emitter(msg, count, req.Silent, func(e session.Event) { failure = &e })
	var err error
	if store {
		err = sess.Execute(ctx, req.Code, emit)
	} else {
		err = sess.ExecuteSilent(ctx, req.Code, emit)
	}
	k.mu.Lock()
	k.cancelCell = nil
	k.parent = nil
	close(k.stdinCancel)
	k.stdinReq = nil
	k.mu.Unlock()
	cancel()

	if err != nil {
		content := newErrorReply("Error", err.Error(), count)
		if failure != nil {
			content = newErrorReply(failure.EName, failure.EValue, count)
			content.Traceback = failure.Traceback
		}
		k.replyError(ch, msg, content, stopOnError && !req.Silent)
		return
	}
	k.reply(ch, msg, "execute_reply", executeReply{ExecutionCount: count, Payload: []any{}, Status: "ok",
		UserExpressions: k.userExpressions(sess, req.UserExpressions)})
}

// replyError sends a failed execute_request's reply. With abort (the
// request's stop_on_error, not silent) it then answers, as ipykernel does,
// the execute requests that were already queued on the shell channel when
// the reply went out with status "aborted"; a request the client sends
// after it has seen the error reply runs. Queued means received and
// decoded by kernel/conn: the count is taken just before the reply is
// sent, so nothing depends on how fast the client answers.
func (k *Kernel) replyError(ch conn.Channel, msg wire.Message, content errorReply, abort bool) {
	queued := 0
	if abort && ch == conn.Shell {
		// Only this goroutine takes from the shell channel: the queued
		// messages stay there until abortQueued takes them.
		queued = len(k.conn.Shell())
	}
	k.reply(ch, msg, "execute_reply", content)
	k.abortQueued(queued)
}

// abortQueued takes n messages from the shell channel, which holds at least
// n, without waiting: execute requests get status "aborted", others are
// handled as usual.
func (k *Kernel) abortQueued(n int) {
	for range n {
		next, ok := <-k.conn.Shell()
		if !ok {
			return
		}
		if next.Header.MsgType != "execute_request" {
			k.handle(conn.Shell, next)
			continue
		}
		k.publishStatus(next, "busy")
		k.reply(conn.Shell, next, "execute_reply", map[string]any{"status": "aborted", "execution_count": nil})
		k.handled(next)
	}
}

func (k *Kernel) userExpressions(sess *session.Session, exprs map[string]string) map[string]any {
	out := map[string]any{}
	for name, code := range exprs {
		var data map[string]any
		var failure *session.Event
		err := sess.ExecuteSilent(context.Background(), code, func(e session.Event) {
			switch e.Kind {
			case session.EventResult:
				data = e.Data
			case session.EventError:
				ev := e
				failure = &ev
			}
		})
		switch {
		case failure != nil:
			out[name] = map[string]any{"status": "error", "ename": failure.EName, "evalue": failure.EValue, "traceback": failure.Traceback}
		case err != nil:
			out[name] = map[string]any{"status": "error", "ename": "Error", "evalue": err.Error(), "traceback": []string{err.Error()}}
		default:
			if data == nil {
				data = map[string]any{display.MIMEPlain: ""}
			}
			out[name] = map[string]any{"status": "ok", "data": data, "metadata": map[string]any{}}
		}
	}
	return out
}

func (k *Kernel) interrupt() {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.cancelCell != nil {
		k.cancelCell()
	}
}

// readInput asks the front end for a line on stdin (input_request) and
// waits for its input_reply. It fails when the request did not allow
// stdin, or when the cell is interrupted.
func (k *Kernel) readInput(prompt string, password bool) (string, error) {
	k.mu.Lock()
	req, cancelled := k.stdinReq, k.stdinCancel
	k.mu.Unlock()
	if req == nil {
		return "", errors.New("kernel: this front end does not accept input (allow_stdin is false)")
	}
	if err := k.send(conn.Stdin, *req, "input_request", map[string]any{"prompt": prompt, "password": password}, nil); err != nil {
		return "", err
	}
	for {
		select {
		case r, ok := <-k.conn.Stdin():
			if !ok {
				return "", errors.New("kernel: stdin closed")
			}
			if r.Header.MsgType != "input_reply" {
				continue
			}
			var c struct {
				Value string `json:"value"`
			}
			if err := json.Unmarshal(r.Content, &c); err != nil {
				return "", fmt.Errorf("kernel: input_reply: %w", err)
			}
			return c.Value, nil
		case <-cancelled:
			return "", errors.New("kernel: interrupted while waiting for input")
		}
	}
}

type cursorRequest struct {
	Code        string `json:"code"`
	CursorPos   int    `json:"cursor_pos"`
	DetailLevel int    `json:"detail_level"`
}

// byteOffset converts a cursor position in Unicode code points, as
// protocol 5.2+ counts it, to a byte offset.
func byteOffset(code string, cursor int) int {
	if cursor < 0 {
		return len(code)
	}
	off := 0
	for i := 0; i < cursor && off < len(code); i++ {
		_, size := utf8.DecodeRuneInString(code[off:])
		off += size
	}
	return off
}

func runeOffset(code string, byteOff int) int {
	if byteOff > len(code) {
		byteOff = len(code)
	}
	return utf8.RuneCountInString(code[:byteOff])
}

func (k *Kernel) complete(ch conn.Channel, msg wire.Message) {
	var req cursorRequest
	sess := k.requestSession(ch, msg, "complete_reply", &req)
	if sess == nil {
		return
	}
	pos := byteOffset(req.Code, req.CursorPos)
	matches, start, end := sess.Complete(req.Code, pos)
	if matches == nil {
		matches = []string{}
	}
	k.reply(ch, msg, "complete_reply", map[string]any{
		"status": "ok", "matches": matches,
		"cursor_start": runeOffset(req.Code, start), "cursor_end": runeOffset(req.Code, end),
		"metadata": map[string]any{},
	})
}

func (k *Kernel) inspect(ch conn.Channel, msg wire.Message) {
	var req cursorRequest
	sess := k.requestSession(ch, msg, "inspect_reply", &req)
	if sess == nil {
		return
	}
	in, found := sess.Inspect(req.Code, byteOffset(req.Code, req.CursorPos))
	data := map[string]any{}
	if found {
		data[display.MIMEPlain] = inspectionText(in)
	}
	k.reply(ch, msg, "inspect_reply", map[string]any{"status": "ok", "found": found, "data": data, "metadata": map[string]any{}})
}

func inspectionText(in session.Inspection) string {
	text := in.Signature
	if in.Doc != "" {
		text += "\n\n" + in.Doc
	}
	return text
}

// helpTarget recognises `name?`, `pkg.Name?` and `?name` cells.
func helpTarget(code string) (string, bool) {
	c := strings.TrimSpace(code)
	if strings.Contains(c, "\n") || len(c) < 2 {
		return "", false
	}
	var target string
	switch {
	case strings.HasSuffix(c, "??"):
		target = strings.TrimSuffix(c, "??")
	case strings.HasSuffix(c, "?"):
		target = strings.TrimSuffix(c, "?")
	case strings.HasPrefix(c, "?"):
		target = strings.TrimPrefix(c, "?")
	default:
		return "", false
	}
	target = strings.TrimSpace(target)
	for _, r := range target {
		if r != '.' && r != '_' && !isLetterOrDigit(r) {
			return "", false
		}
	}
	return target, target != ""
}

func isLetterOrDigit(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r > 127
}

func (k *Kernel) isComplete(ch conn.Channel, msg wire.Message) {
	var req struct {
		Code string `json:"code"`
	}
	if err := json.Unmarshal(msg.Content, &req); err != nil {
		k.reply(ch, msg, "is_complete_reply", map[string]any{"status": "unknown"})
		return
	}
	status, indent := session.IsComplete(req.Code)
	content := map[string]any{"status": status}
	if status == session.Incomplete {
		content["indent"] = indent
	}
	k.reply(ch, msg, "is_complete_reply", content)
}

func (k *Kernel) history(ch conn.Channel, msg wire.Message) {
	var req struct {
		Output         bool   `json:"output"`
		Raw            bool   `json:"raw"`
		HistAccessType string `json:"hist_access_type"`
		Session        int    `json:"session"`
		Start          int    `json:"start"`
		Stop           int    `json:"stop"`
		N              int    `json:"n"`
		Pattern        string `json:"pattern"`
		Unique         bool   `json:"unique"`
	}
	sess := k.requestSession(ch, msg, "history_reply", &req)
	if sess == nil {
		return
	}
	entries := sess.History(req.HistAccessType, req.N, req.Start, req.Stop, req.Pattern)
	seen := map[string]bool{}
	hist := make([][]any, 0, len(entries))
	for _, e := range entries {
		if req.Unique {
			if seen[e.Input] {
				continue
			}
			seen[e.Input] = true
		}
		if req.Output {
			hist = append(hist, []any{e.Session, e.Line, []any{e.Input, nil}})
		} else {
			hist = append(hist, []any{e.Session, e.Line, e.Input})
		}
	}
	k.reply(ch, msg, "history_reply", map[string]any{"status": "ok", "history": hist})
}

// flushSession waits until the session's captured output has been emitted.
func (k *Kernel) flushSession() {
	if k.sess != nil {
		k.sess.Flush()
	}
}

func newSessionID() string {
	return wire.NewHeader("", "", "").MsgID
}
