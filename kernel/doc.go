// Package kernel is the commlab Jupyter kernel: it answers the requests of
// Jupyter's messaging protocol 5.3 on the shell and control channels, runs
// cells through kernel/session, publishes their events on iopub, asks the
// user for input on stdin, and handles interrupts (interrupt_request and
// SIGINT) and shutdown.
//
// Frames and signatures belong to kernel/wire, sockets to kernel/conn, cell
// execution to kernel/session; this package only joins them.
package kernel
