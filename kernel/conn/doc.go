// Package conn reads a Jupyter connection file and owns the kernel's five
// ZeroMQ sockets: shell, control and stdin (ROUTER), iopub (PUB) and the
// heartbeat (a ROUTER that echoes every message, as ipykernel's does).
//
// Incoming messages are decoded and their signatures verified by
// kernel/wire; a message that fails is logged and dropped, never delivered.
// Conn delivers the rest on one Go channel per socket and sends replies and
// iopub publications signed with the connection file's key.
//
// conn is the only package that imports github.com/go-zeromq/zmq4 (pure Go,
// so the kernel needs no libzmq). It does not own message semantics: busy and
// idle status, replies and handlers belong to package kernel.
//
// zmq4 v0.17.0 behaviours this package works around or relies on:
//   - A ROUTER sends a frame list whose first frame names the peer; a message
//     for an unknown peer is silently dropped, so Send refuses a shell,
//     control or stdin message without identities instead.
//   - Sending on a ROUTER after Close reports success; Send checks Close itself.
//   - PUB sends are queued and never block; a subscriber sees only messages
//     published after its subscription arrived (the slow joiner), which is why
//     Jupyter clients wait for an iopub status before trusting iopub.
//   - Messages still queued on PUB when Close runs are lost.
//   - A ROUTER writes each frame as two syscalls and every socket reads each
//     frame with two unbuffered reads; Conn binds through its own transports
//     (transport.go), which buffer reads and send each message in one write.
//     PUB sends use SendMulti, which zmq4 writes with one writev.
//   - zmq4 allocates whatever size a frame header announces. The transports
//     follow the framing of what they read and close a connection whose peer
//     announces a frame above 1 GiB (ErrFrameTooLarge) before zmq4 sees the
//     header; the other connections carry on.
package conn
