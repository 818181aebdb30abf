package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/commlab/commlab/install"
	"github.com/commlab/commlab/kernel"
	"github.com/commlab/commlab/kernel/conn"
	"github.com/commlab/commlab/kernel/symbols"
)

// This file holds the verbs Jupyter meets: kernel and install.

func runKernel(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("commlab kernel", stderr, "usage: commlab kernel [--log LEVEL] <connection-file>")
	logLevel := fs.String("log", envOr("COMMLAB_LOG", "warn"), "log level: debug, info, warn or error")
	files, status, ok := parseFlags(fs, args)
	if !ok {
		return status
	}
	if len(files) != 1 {
		return fail(fs, stderr, 2, "want one connection file, got %d arguments", len(files))
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(strings.ToUpper(*logLevel))); err != nil {
		return fail(fs, stderr, 2, "bad --log %q: %v", *logLevel, err)
	}
	info, err := conn.ReadInfo(files[0])
	if err != nil {
		return fail(fs, stderr, exitBadInput, "%v", err)
	}
	// The kernel log goes to the real stderr, which the session later
	// redirects into cells; keep a handle on the original descriptor.
	logOut := os.NewFile(uintptr(dupStderr()), "kernel-log")
	logger := slog.New(slog.NewTextHandler(logOut, &slog.HandlerOptions{Level: level}))
	err = kernel.Serve(context.Background(), info, kernel.Options{Version: version(), Packages: symbols.Symbols, Logger: logger})
	if err != nil {
		fmt.Fprintf(logOut, "commlab kernel: %v\n", err)
		return 1
	}
	return 0
}

// dupStderr returns a new descriptor for the process's standard error as
// it is now, before any cell output capture redirects descriptor 2.
func dupStderr() int {
	fd, err := unix.Dup(2)
	if err != nil {
		return 2
	}
	return fd
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

func runInstall(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("commlab install", stderr, "usage: commlab install [--user | --sys-prefix | --prefix DIR] [--uninstall] [--name NAME]")
	user := fs.Bool("user", false, "install for the current user: $JUPYTER_DATA_DIR or ~/.local/share/jupyter (the default)")
	sysPrefix := fs.Bool("sys-prefix", false, "install into the Python environment that runs jupyter: <sys.prefix>/share/jupyter")
	prefix := fs.String("prefix", "", "install into `DIR`/share/jupyter")
	uninstall := fs.Bool("uninstall", false, "remove the kernelspec instead of installing it")
	name := fs.String("name", install.DefaultName, "kernelspec `name`")
	if status, ok := parseOnlyFlags(fs, args, stderr); !ok {
		return status
	}
	scopes := 0
	for _, set := range []bool{*user, *sysPrefix, *prefix != ""} {
		if set {
			scopes++
		}
	}
	if scopes > 1 {
		return fail(fs, stderr, 2, "choose one of --user, --sys-prefix and --prefix")
	}

	// The kernelspec and the widgets' nbextension go to a data directory,
	// the nbextension's enabling file to the matching config directory.
	var dataDir, configDir, where string
	var err error
	switch {
	case *prefix != "":
		dataDir, configDir, where = install.PrefixDataDir(*prefix), install.PrefixConfigDir(*prefix), "--prefix "+*prefix
	case *sysPrefix:
		var p string
		p, where, err = install.SysPrefix()
		dataDir, configDir, where = install.PrefixDataDir(p), install.PrefixConfigDir(p), "sys.prefix from "+where
	default:
		dataDir, err = install.UserDataDir()
		if err == nil {
			configDir, err = install.UserConfigDir()
		}
		where = "user data dir"
	}
	if err != nil {
		return fail(fs, stderr, 1, "%v", err)
	}

	if *uninstall {
		dir, err := install.Uninstall(dataDir, *name)
		if err != nil {
			return fail(fs, stderr, 1, "%v", err)
		}
		if err := install.UninstallWidgets(dataDir, configDir); err != nil {
			return fail(fs, stderr, 1, "%v", err)
		}
		fmt.Fprintf(stdout, "removed kernelspec %s from %s and the widgets' nbextension %s\n", *name, dir, install.WidgetsExtension)
		return 0
	}
	exe, err := install.Executable()
	if err != nil {
		return fail(fs, stderr, 1, "%v", err)
	}
	dir, err := install.Install(dataDir, *name, exe)
	if err != nil {
		return fail(fs, stderr, 1, "%v", err)
	}
	extDir, config, err := install.InstallWidgets(dataDir, configDir)
	if err != nil {
		return fail(fs, stderr, 1, "%v", err)
	}
	fmt.Fprintf(stdout, "installed kernelspec %s in %s (%s)\nkernel command: %s kernel {connection_file}\n", *name, dir, where, exe)
	fmt.Fprintf(stdout, "installed the widgets' front end for the classic Notebook in %s, enabled by %s\n", extDir, config)
	return 0
}
