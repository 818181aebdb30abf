package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/commlab/commlab/kernel"
	"github.com/commlab/commlab/kernel/symbols"
)

func init() {
	register(subcommand{name: "kernel", summary: "run the Jupyter kernel on a connection file", run: runKernel})
}

func runKernel(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("kernel", flag.ContinueOnError)
	fs.SetOutput(stderr)
	logLevel := fs.String("log", envOr("COMMLAB_LOG", "warn"), "log level: debug, info, warn or error")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: commlab kernel [--log LEVEL] <connection-file>")
		fs.PrintDefaults()
	}
	files, err := parseInterleaved(fs, args)
	if err != nil {
		return 2
	}
	if len(files) != 1 {
		fs.Usage()
		return 2
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(strings.ToUpper(*logLevel))); err != nil {
		fmt.Fprintf(stderr, "commlab kernel: bad --log %q: %v\n", *logLevel, err)
		return 2
	}
	// The kernel log goes to the real stderr, which the session later
	// redirects into cells; keep a handle on the original descriptor.
	logOut := os.NewFile(uintptr(dupStderr()), "kernel-log")
	logger := slog.New(slog.NewTextHandler(logOut, &slog.HandlerOptions{Level: level}))
	err = kernel.Run(context.Background(), files[0], kernel.Options{Version: version(), Packages: symbols.Symbols, Logger: logger})
	if err != nil {
		fmt.Fprintf(logOut, "commlab kernel: %v\n", err)
		return 1
	}
	return 0
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}
