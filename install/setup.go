package install

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
)

// ErrScopes: more than one of the user, sys.prefix and prefix scopes was
// asked for.
var ErrScopes = errors.New("choose one of --user, --sys-prefix and --prefix")

// Setup is one `commlab install`: where the kernelspec and the widgets'
// front end go (the user's data directory unless SysPrefix or Prefix
// says otherwise), under which kernelspec name, and whether to remove
// them instead.
type Setup struct {
	User, SysPrefix bool
	Prefix          string
	Name            string
	Uninstall       bool
}

// Run installs (or removes) the kernelspec and the widgets' front end,
// says on stdout where, and warns on stderr of what would keep a shared
// environment's front ends or other users' kernels from working. An error
// that a folder is not writable names the fix.
func (s Setup) Run(stdout, stderr io.Writer) error {
	scopes := 0
	for _, set := range []bool{s.User, s.SysPrefix, s.Prefix != ""} {
		if set {
			scopes++
		}
	}
	if scopes > 1 {
		return ErrScopes
	}

	// The kernelspec and the widgets' nbextension go to a data directory,
	// the nbextension's enabling file to the matching config directory.
	var dataDir, configDir, where, envPrefix string
	var err error
	switch {
	case s.Prefix != "":
		envPrefix = s.Prefix
		dataDir, configDir, where = PrefixDataDir(s.Prefix), PrefixConfigDir(s.Prefix), "--prefix "+s.Prefix
	case s.SysPrefix:
		envPrefix, where, err = SysPrefix()
		dataDir, configDir, where = PrefixDataDir(envPrefix), PrefixConfigDir(envPrefix), "sys.prefix from "+where
	default:
		dataDir, err = UserDataDir()
		if err == nil {
			configDir, err = UserConfigDir()
		}
		where = "user data dir"
	}
	if err != nil {
		return err
	}
	// notWritable names the fix for a kernelspec folder the user may not
	// write: on a hub, the environment is its administrator's.
	notWritable := func(err error) error {
		if envPrefix != "" {
			return fmt.Errorf("%w\nthis environment belongs to another user (on a JupyterHub, its administrator): ask its owner to run\n  PATH=%s:$PATH commlab install --sys-prefix\nor register the kernel for yourself alone with\n  commlab install --user",
				err, filepath.Join(envPrefix, "bin"))
		}
		return fmt.Errorf("%w\nmake %s yours again, or set JUPYTER_DATA_DIR and JUPYTER_CONFIG_DIR to folders you own", err, dataDir)
	}

	if s.Uninstall {
		dir, err := Uninstall(dataDir, s.Name)
		if err != nil {
			return err
		}
		if err := UninstallWidgets(dataDir, configDir); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "removed kernelspec %s from %s and the widgets' nbextension %s\n", s.Name, dir, WidgetsExtension)
		return nil
	}
	exe, err := Executable()
	if err != nil {
		return err
	}
	dir, err := Install(dataDir, s.Name, exe)
	if errors.Is(err, ErrNotWritable) {
		return notWritable(err)
	}
	if err != nil {
		return err
	}
	extDir, config, err := InstallWidgets(dataDir, configDir)
	if errors.Is(err, ErrNotWritable) {
		return notWritable(err)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "installed kernelspec %s in %s (%s)\nkernel command: %s kernel {connection_file}\n", s.Name, dir, where, exe)
	fmt.Fprintf(stdout, "installed the widgets' front end for the classic Notebook in %s, enabled by %s\n", extDir, config)
	if envPrefix != "" {
		s.warnShared(envPrefix, dir, exe, stderr)
	}
	return nil
}

// warnShared says whether a Python environment's front ends can draw
// widgets, and whether everyone who sees the kernelspec can run the
// kernel.
func (s Setup) warnShared(envPrefix, dir, exe string, stderr io.Writer) {
	for _, w := range CheckFrontEnds(envPrefix, DataPath(envPrefix), s.SysPrefix) {
		fmt.Fprintf(stderr, "commlab install: warning: %s\n  fix: %s\n", w.Problem, w.Fix)
	}
	// The environment's own python too: a venv made from a Python
	// under root's home (pyenv's) starts no server for anyone else.
	if py, err := filepath.EvalSymlinks(filepath.Join(envPrefix, "bin", "python")); err == nil {
		if blocker := SharedButNotRunnable(filepath.Join(dir, "kernel.json"), py); blocker != "" {
			fmt.Fprintf(stderr, "commlab install: warning: other users can read this kernelspec but cannot run this environment's python %s (%s is %s): on a JupyterHub their servers would not start\n  fix: make the environment from a Python every user can run, e.g. /usr/bin/python3 -m venv --clear %s, and install into it again\n",
				py, blocker, ModeOf(blocker), envPrefix)
		}
	}
	if blocker := SharedButNotRunnable(filepath.Join(dir, "kernel.json"), exe); blocker != "" {
		fmt.Fprintf(stderr, "commlab install: warning: other users can read this kernelspec but cannot run %s (%s is %s): on a JupyterHub their kernels would not start\n  fix: sudo install -m 755 %s /usr/local/bin/commlab && sudo env PATH=%s:$PATH /usr/local/bin/commlab install %s\n",
			exe, blocker, ModeOf(blocker), exe, filepath.Join(envPrefix, "bin"), scopeFlag(s.SysPrefix, s.Prefix))
	}
}

// scopeFlag is the install flag of a prefix scope, to repeat in advice.
func scopeFlag(sysPrefix bool, prefix string) string {
	if sysPrefix {
		return "--sys-prefix"
	}
	return "--prefix " + prefix
}
