package main

import "golang.org/x/sys/unix"

// dupStderr returns a new descriptor for the process's standard error as
// it is now, before any cell output capture redirects descriptor 2.
func dupStderr() int {
	fd, err := unix.Dup(2)
	if err != nil {
		return 2
	}
	return fd
}
