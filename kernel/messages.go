package kernel

import (
	"encoding/json"

	"github.com/commlab/commlab/kernel/conn"
	"github.com/commlab/commlab/kernel/session"
	"github.com/commlab/commlab/kernel/wire"
)

// Every message the kernel sends answers a parent message: send stamps the
// header from the parent and sends it; reply and publish are send on the
// request's channel and on iopub. A cell's output follows one path: the
// session emits an Event, emitter hands it to publishEvent, eventMessage
// gives its iopub type and content, publish sends it.
//
// Contents are small structs whose fields are in the order of their JSON
// keys, so that they encode to the same bytes as the maps they replaced.

type statusContent struct {
	ExecutionState string `json:"execution_state"`
}

type streamContent struct {
	Name string `json:"name"`
	Text string `json:"text"`
}

// displayContent is display_data and update_display_data.
type displayContent struct {
	Data      map[string]any    `json:"data"`
	Metadata  map[string]any    `json:"metadata"`
	Transient *displayTransient `json:"transient,omitempty"`
}

type displayTransient struct {
	DisplayID string `json:"display_id"`
}

type resultContent struct {
	Data           map[string]any `json:"data"`
	ExecutionCount int            `json:"execution_count"`
	Metadata       map[string]any `json:"metadata"`
}

type errorContent struct {
	EName     string   `json:"ename"`
	EValue    string   `json:"evalue"`
	Traceback []string `json:"traceback"`
}

type clearOutputContent struct {
	Wait bool `json:"wait"`
}

// errorReply answers a request that failed, whatever its type.
type errorReply struct {
	EName          string   `json:"ename"`
	EValue         string   `json:"evalue"`
	ExecutionCount int      `json:"execution_count"`
	Status         string   `json:"status"`
	Traceback      []string `json:"traceback"`
}

func newErrorReply(ename, evalue string, count int) errorReply {
	return errorReply{EName: ename, EValue: evalue, ExecutionCount: count, Status: "error", Traceback: []string{ename + ": " + evalue}}
}

type executeReply struct {
	ExecutionCount  int            `json:"execution_count"`
	Payload         []any          `json:"payload"`
	Status          string         `json:"status"`
	UserExpressions map[string]any `json:"user_expressions"`
}

// commContent is comm_open, comm_msg and comm_close, both ways.
type commContent struct {
	CommID     string         `json:"comm_id"`
	Data       map[string]any `json:"data"`
	TargetName string         `json:"target_name,omitempty"`
}

// send stamps a message answering parent (the kernel's session and user
// name in its header) and sends it on ch: replies on shell or control, input
// requests on stdin, everything else on iopub, where no identities route.
func (k *Kernel) send(ch conn.Channel, parent wire.Message, msgType string, content, metadata any) error {
	m, err := wire.Reply(parent, msgType, content)
	if err != nil {
		k.log.Error("kernel: build message", "msg_type", msgType, "err", err)
		return err
	}
	if ch == conn.IOPub {
		m.Identities = nil
	}
	m.Header.Session = k.sessionID
	m.Header.Username = "kernel"
	if metadata != nil {
		if raw, err := json.Marshal(metadata); err == nil {
			m.Metadata = raw
		}
	}
	if err := k.conn.Send(ch, m); err != nil {
		k.log.Error("kernel: send", "msg_type", msgType, "channel", ch.String(), "err", err)
		return err
	}
	return nil
}

// reply answers req on ch, after req's idle status: everything the request
// publishes is on IOPub before its reply leaves, so a client that reads
// IOPub once it holds the reply finds idle there and never waits for it.
// jupyter_kernel_test does, giving each further IOPub message 0.1 s: a
// kernel slowed by a busy machine between reply and idle failed it, and
// left an idle a later test read as its own. Clients wait for both (an
// execution is done at its reply and its idle, in either order).
func (k *Kernel) reply(ch conn.Channel, req wire.Message, msgType string, content any) {
	k.publishIdle(req)
	if k.send(ch, req, msgType, content, nil) == nil {
		k.log.Debug("kernel: replied", "msg_type", msgType, "parent", req.Header.MsgID)
	}
}

// publishIdle publishes req's idle status once, however many of the reply
// and handle's end call it.
func (k *Kernel) publishIdle(req wire.Message) {
	k.mu.Lock()
	if k.idleSent == nil {
		k.idleSent = map[string]bool{}
	}
	sent := k.idleSent[req.Header.MsgID]
	k.idleSent[req.Header.MsgID] = true
	k.mu.Unlock()
	if !sent {
		k.publishStatus(req, "idle")
	}
}

// handled forgets req's idle, once req is handled.
func (k *Kernel) handled(req wire.Message) {
	k.mu.Lock()
	delete(k.idleSent, req.Header.MsgID)
	k.mu.Unlock()
}

// publish sends an iopub message whose parent is req.
func (k *Kernel) publish(req wire.Message, msgType string, content any) {
	_ = k.send(conn.IOPub, req, msgType, content, nil)
}

func (k *Kernel) publishStatus(req wire.Message, state string) {
	if k.send(conn.IOPub, req, "status", statusContent{ExecutionState: state}, nil) == nil {
		k.log.Debug("kernel: status", "state", state, "parent", req.Header.MsgID)
	}
}

// emitter returns the session emit function for a request: events become
// iopub messages under parent, or captured outputs while a widget captures;
// onError, if not nil, sees each error event first.
func (k *Kernel) emitter(parent wire.Message, count int, silent bool, onError func(session.Event)) func(session.Event) {
	return func(e session.Event) {
		if e.Kind == session.EventError && onError != nil {
			onError(e)
		}
		if k.captured(e, count) || silent {
			return
		}
		k.publishEvent(parent, e, count)
	}
}

// background publishes output that arrives while no cell runs (a goroutine
// a finished cell started) under the last execute request.
func (k *Kernel) background(e session.Event) {
	k.mu.Lock()
	parent := k.lastExecute
	k.mu.Unlock()
	if parent != nil {
		k.publishEvent(*parent, e, 0)
	}
}

// publishEvent sends a session event as its iopub message.
func (k *Kernel) publishEvent(parent wire.Message, e session.Event, count int) {
	if msgType, content := eventMessage(e, count); msgType != "" {
		k.publish(parent, msgType, content)
	}
}

// eventMessage is a session event's iopub message type and content.
func eventMessage(e session.Event, count int) (string, any) {
	switch e.Kind {
	case session.EventStream:
		return "stream", streamContent{Name: e.Name, Text: e.Text}
	case session.EventDisplay, session.EventUpdateDisplay:
		c := displayContent{Data: e.Data, Metadata: nonNil(e.Metadata)}
		if e.DisplayID != "" {
			c.Transient = &displayTransient{DisplayID: e.DisplayID}
		}
		return string(e.Kind), c
	case session.EventResult:
		return "execute_result", resultContent{Data: e.Data, ExecutionCount: count, Metadata: nonNil(e.Metadata)}
	case session.EventError:
		tb := e.Traceback
		if tb == nil {
			tb = []string{}
		}
		return "error", errorContent{EName: e.EName, EValue: e.EValue, Traceback: tb}
	case session.EventClearOutput:
		return "clear_output", clearOutputContent{Wait: e.Wait}
	}
	return "", nil
}

// captured keeps e as an nbformat output while a widget captures outputs.
func (k *Kernel) captured(e session.Event, count int) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	c := k.capture
	if c == nil {
		return false
	}
	if e.Kind == session.EventClearOutput {
		*c = (*c)[:0]
	} else if o := nbOutput(e, count); o != nil {
		*c = append(*c, o)
	}
	return true
}

// nbOutput is an event as an nbformat output dict.
func nbOutput(e session.Event, count int) map[string]any {
	switch e.Kind {
	case session.EventStream:
		return map[string]any{"output_type": "stream", "name": e.Name, "text": e.Text}
	case session.EventDisplay, session.EventUpdateDisplay:
		return map[string]any{"output_type": "display_data", "data": e.Data, "metadata": nonNil(e.Metadata)}
	case session.EventResult:
		return map[string]any{"output_type": "execute_result", "execution_count": count, "data": e.Data, "metadata": nonNil(e.Metadata)}
	case session.EventError:
		return map[string]any{"output_type": "error", "ename": e.EName, "evalue": e.EValue, "traceback": e.Traceback}
	}
	return nil
}

func nonNil(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}
