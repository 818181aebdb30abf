package kernel

import (
	"encoding/json"

	"github.com/commlab/commlab/kernel/conn"
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
	content := commContent{CommID: m.CommID, Data: m.Data}
	switch {
	case m.Open:
		content.TargetName = m.Target
		_ = t.k.send(conn.IOPub, *parent, "comm_open", content, m.Metadata)
	case m.Close:
		t.k.publish(*parent, "comm_close", content)
	default:
		_ = t.k.send(conn.IOPub, *parent, "comm_msg", content, map[string]any{"version": widget.ProtocolVersion})
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

// commOpen answers a front end opening a comm: jupyter.widget.control asks
// for every widget's state; other targets are closed at once.
func (k *Kernel) commOpen(msg wire.Message) {
	var c commContent
	_ = json.Unmarshal(msg.Content, &c)
	if c.TargetName != widget.ControlCommTarget {
		k.publish(msg, "comm_close", commContent{CommID: c.CommID, Data: map[string]any{}})
		return
	}
	k.mu.Lock()
	k.controlComms[c.CommID] = true
	k.mu.Unlock()
	// JupyterLab opens the comm with empty data, then asks in a comm_msg.
	if c.Data["method"] != nil {
		k.sendStates(msg, c.CommID, c.Data)
	}
}

func (k *Kernel) sendStates(parent wire.Message, commID string, data map[string]any) {
	reply, err := widget.Control(data)
	if err != nil {
		k.log.Warn("kernel: jupyter.widget.control", "err", err)
		return
	}
	k.publish(parent, "comm_msg", commContent{CommID: commID, Data: reply})
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
		k.sendStates(msg, c.CommID, c.Data)
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
