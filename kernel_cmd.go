package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
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
	var dataDir, configDir, where, envPrefix string
	var err error
	switch {
	case *prefix != "":
		envPrefix = *prefix
		dataDir, configDir, where = install.PrefixDataDir(*prefix), install.PrefixConfigDir(*prefix), "--prefix "+*prefix
	case *sysPrefix:
		envPrefix, where, err = install.SysPrefix()
		dataDir, configDir, where = install.PrefixDataDir(envPrefix), install.PrefixConfigDir(envPrefix), "sys.prefix from "+where
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
	// notWritable names the fix for a kernelspec folder the user may not
	// write: on a hub, the environment is its administrator's.
	notWritable := func(err error) int {
		if envPrefix != "" {
			return fail(fs, stderr, 1, "%v\nthis environment belongs to another user (on a JupyterHub, its administrator): ask its owner to run\n  PATH=%s:$PATH commlab install --sys-prefix\nor register the kernel for yourself alone with\n  commlab install --user",
				err, filepath.Join(envPrefix, "bin"))
		}
		return fail(fs, stderr, 1, "%v\nmake %s yours again, or set JUPYTER_DATA_DIR and JUPYTER_CONFIG_DIR to folders you own", err, dataDir)
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
	if errors.Is(err, install.ErrNotWritable) {
		return notWritable(err)
	}
	if err != nil {
		return fail(fs, stderr, 1, "%v", err)
	}
	extDir, config, err := install.InstallWidgets(dataDir, configDir)
	if errors.Is(err, install.ErrNotWritable) {
		return notWritable(err)
	}
	if err != nil {
		return fail(fs, stderr, 1, "%v", err)
	}
	fmt.Fprintf(stdout, "installed kernelspec %s in %s (%s)\nkernel command: %s kernel {connection_file}\n", *name, dir, where, exe)
	fmt.Fprintf(stdout, "installed the widgets' front end for the classic Notebook in %s, enabled by %s\n", extDir, config)
	if envPrefix != "" {
		// A Python environment: can its front ends draw widgets, and can
		// everyone who sees the kernelspec run the kernel?
		for _, w := range install.CheckFrontEnds(envPrefix, install.DataPath(envPrefix), *sysPrefix) {
			fmt.Fprintf(stderr, "commlab install: warning: %s\n  fix: %s\n", w.Problem, w.Fix)
		}
		// The environment's own python too: a venv made from a Python
		// under root's home (pyenv's) starts no server for anyone else.
		if py, err := filepath.EvalSymlinks(filepath.Join(envPrefix, "bin", "python")); err == nil {
			if blocker := install.SharedButNotRunnable(filepath.Join(dir, "kernel.json"), py); blocker != "" {
				fmt.Fprintf(stderr, "commlab install: warning: other users can read this kernelspec but cannot run this environment's python %s (%s is %s): on a JupyterHub their servers would not start\n  fix: make the environment from a Python every user can run, e.g. /usr/bin/python3 -m venv --clear %s, and install into it again\n",
					py, blocker, install.ModeOf(blocker), envPrefix)
			}
		}
		if blocker := install.SharedButNotRunnable(filepath.Join(dir, "kernel.json"), exe); blocker != "" {
			fmt.Fprintf(stderr, "commlab install: warning: other users can read this kernelspec but cannot run %s (%s is %s): on a JupyterHub their kernels would not start\n  fix: sudo install -m 755 %s /usr/local/bin/commlab && sudo env PATH=%s:$PATH /usr/local/bin/commlab install %s\n",
				exe, blocker, install.ModeOf(blocker), exe, filepath.Join(envPrefix, "bin"), scopeFlag(*sysPrefix, *prefix))
		}
	}
	return 0
}

// scopeFlag is the install flag of a prefix scope, to repeat in advice.
func scopeFlag(sysPrefix bool, prefix string) string {
	if sysPrefix {
		return "--sys-prefix"
	}
	return "--prefix " + prefix
}
