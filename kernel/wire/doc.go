// Package wire converts between the ZeroMQ frames of the Jupyter messaging
// protocol (version 5.3) and Message values, and signs and verifies them with
// HMAC-SHA256.
//
// A message on the wire is a list of frames:
//
//	identities..., "<IDS|MSG>", signature, header, parent_header, metadata, content, buffers...
//
// The signature is the lowercase hex HMAC of the four JSON frames, in that
// order, keyed by the connection file's key; an empty key means messages are
// neither signed nor checked. Incoming signatures are compared in constant time.
//
// wire owns the frame layout, headers and signatures. It does not own sockets
// (kernel/conn), message semantics or handlers (kernel), and it imports only
// the standard library, so it can be fuzzed and tested without ZeroMQ.
//
// Spec: https://jupyter-client.readthedocs.io/en/latest/messaging.html#the-wire-protocol
package wire
