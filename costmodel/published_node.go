package costmodel

// Node is the node a published run ran on: its preset, with the NICs and
// the NIC the row names in place of the preset's network.
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
	return node, nil
}
