package kernel

import (
	"io"
	"log/slog"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// DefaultLogLevel is the kernel log's level unless the command says
// otherwise: $COMMLAB_LOG, else warn.
func DefaultLogLevel() string {
	if v := os.Getenv("COMMLAB_LOG"); v != "" {
		return v
	}
	return "warn"
}

// StderrLogger returns a logger at level (debug, info, warn or error, any
// case) that writes to the process's standard error as it is now, and that
// writer: the session later redirects descriptor 2 into cells, and the
// kernel's log must not follow it there.
func StderrLogger(level string) (*slog.Logger, io.Writer, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(strings.ToUpper(level))); err != nil {
		return nil, nil, err
	}
	fd, err := unix.Dup(2)
	if err != nil {
		fd = 2
	}
	w := os.NewFile(uintptr(fd), "kernel-log")
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: l})), w, nil
}
