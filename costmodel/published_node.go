package costmodel

import "fmt"

// Node is the node a published run ran on: its preset, with the NICs and
// the NIC the row names in place of the preset's network, and peer-to-peer
// as the row's P2P says.
func (r PublishedRow) Node() (Node, error) {
	node, err := NodeByName(r.Preset)
	if err != nil {
		return Node{}, err
	}
	if r.NIC != "" {
		if node.NIC, err = LinkByName(r.NIC); err != nil {
			return Node{}, err
		}
	}
	if r.NICs > 0 {
		node.NICs = r.NICs
	}
	switch {
	case r.P2P != "" && node.Intra.Kind != "pcie":
		return Node{}, fmt.Errorf("%w: %s: p2p %s, but preset %s joins its GPUs by %s, not PCIe", ErrParams, r.ID, r.P2P,
			r.Preset, node.Intra.Kind)
	case r.P2P == "off":
		node.NoP2P = true
	case r.P2P == "on":
		node.NoP2P = false
	}
	return node, nil
}
