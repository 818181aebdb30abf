// Package kernel is the commlab Jupyter kernel: it answers the requests of
// Jupyter's messaging protocol 5.3 on the shell and control channels, runs
// cells through kernel/session, publishes their events on iopub, asks the
// user for input on stdin, and handles interrupts (interrupt_request and
// SIGINT) and shutdown.
//
// Frames and signatures belong to kernel/wire, sockets to kernel/conn, cell
// execution to kernel/session; this package only joins them.
//
// It is the generic half of the house: it imports nothing of the GPU
// subject. What cells see (the compiled packages they may import, the
// renderers of their values) comes in through
// Options.Session; the commlab command fills it from package cells.
package kernel
