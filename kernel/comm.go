package kernel

import (
	"encoding/json"

	"github.com/commlab/commlab/kernel/conn"
	"github.com/commlab/commlab/kernel/session"
	"github.com/commlab/commlab/kernel/widget"
	"github.com/commlab/commlab/kernel/wire"
)

// widgetTransport sends widget comm messages on iopub, under the request
// being handled.
type widgetTransport struct{ k *Kernel }

func (t widgetTransport) Send(m widget.CommMessage) {
	parent := t.k.currentParent()
	if parent == nil {
		return
	}
	switch {
	case m.Open:
		t.k.publishWithMetadata(*parent, "comm_open", map[string]any{"comm_id": m.CommID, "target_name": m.Target, "data": m.Data}, m.Metadata)
	case m.Close:
		t.k.publish(*parent, "comm_close", map[string]any{"comm_id": m.CommID, "data": m.Data})
	default:
		t.k.publishWithMetadata(*parent, "comm_msg", map[string]any{"comm_id": m.CommID, "data": m.Data}, map[string]any{"version": widget.ProtocolVersion})
	}
}

func (t widgetTransport) Capture(fn func()) []map[string]any {
	t.k.mu.Lock()
	prev := t.k.capture
	captured := []map[string]any{}
	t.k.capture = &captured
	t.k.mu.Unlock()
	defer func() {
		t.k.mu.Lock()
		t.k.capture = prev
		t.k.mu.Unlock()
	}()
	fn()
	t.k.flushSession()
	t.k.mu.Lock()
	defer t.k.mu.Unlock()
	return *t.k.capture
}

// emitter returns the session emit function for a request: events become
// iopub messages under parent, or captured outputs while a widget captures.
func (k *Kernel) emitter(parent wire.Message, count int, silent bool, onError func(session.Event)) func(session.Event) {
	return func(e session.Event) {
		if e.Kind == session.EventError && onError != nil {
			onError(e)
		}
		k.mu.Lock()
		c := k.capture
		if c != nil {
			if e.Kind == session.EventClearOutput {
				*c = (*c)[:0]
			} else if o := nbOutput(e, count); o != nil {
				*c = append(*c, o)
			}
			k.mu.Unlock()
			return
		}
		k.mu.Unlock()
		if !silent {
			k.publishEvent(parent, e, count)
		}
	}
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

func (k *Kernel) currentParent() *wire.Message {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.parent
}

func (k *Kernel) setParent(m *wire.Message) {
	k.mu.Lock()
	k.parent = m
	k.mu.Unlock()
}

type commContent struct {
	CommID     string         `json:"comm_id"`
	TargetName string         `json:"target_name"`
	Data       map[string]any `json:"data"`
}

// commOpen answers a front end opening a comm: jupyter.widget.control asks
// for every widget's state; other targets are closed at once.
func (k *Kernel) commOpen(msg wire.Message) {
	var c commContent
	_ = json.Unmarshal(msg.Content, &c)
	if c.TargetName != widget.ControlCommTarget {
		k.publish(msg, "comm_close", map[string]any{"comm_id": c.CommID, "data": map[string]any{}})
		return
	}
	k.mu.Lock()
	k.controlComms[c.CommID] = true
	k.mu.Unlock()
	if c.Data["method"] == "request_states" {
		k.sendStates(msg, c.CommID)
	}
}

func (k *Kernel) sendStates(parent wire.Message, commID string) {
	k.publish(parent, "comm_msg", map[string]any{"comm_id": commID,
		"data": map[string]any{"method": "update_states", "states": widget.AllStates(), "buffer_paths": map[string]any{}}})
}

// commMsg delivers a front end's widget message; callbacks it triggers
// (OnChange, Interact) run like a cell, their output under this message.
func (k *Kernel) commMsg(msg wire.Message) {
	var c commContent
	if err := json.Unmarshal(msg.Content, &c); err != nil {
		k.log.Warn("kernel: bad comm_msg", "err", err)
		return
	}
	k.mu.Lock()
	control := k.controlComms[c.CommID]
	k.mu.Unlock()
	if control {
		if c.Data["method"] == "request_states" {
			k.sendStates(msg, c.CommID)
		}
		return
	}
	sess, err := k.waitSession()
	if err != nil {
		return
	}
	k.setParent(&msg)
	defer k.setParent(nil)
	_ = sess.Call(k.emitter(msg, 0, false, nil), func() {
		if err := widget.Deliver(c.CommID, c.Data); err != nil {
			k.log.Warn("kernel: comm_msg", "err", err)
		}
	})
}

func (k *Kernel) commClose(msg wire.Message) {
	var c commContent
	_ = json.Unmarshal(msg.Content, &c)
	k.mu.Lock()
	delete(k.controlComms, c.CommID)
	k.mu.Unlock()
	widget.Closed(c.CommID)
}

func (k *Kernel) commInfo(ch conn.Channel, msg wire.Message) {
	var req struct {
		TargetName string `json:"target_name"`
	}
	_ = json.Unmarshal(msg.Content, &req)
	comms := map[string]any{}
	if req.TargetName == "" || req.TargetName == widget.CommTarget {
		for id := range widget.AllStates() {
			comms[id] = map[string]any{"target_name": widget.CommTarget}
		}
	}
	k.reply(ch, msg, "comm_info_reply", map[string]any{"status": "ok", "comms": comms})
}
