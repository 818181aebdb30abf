package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/commlab/commlab/install"
)

func init() {
	register(subcommand{name: "install", summary: "install the Jupyter kernelspec (Go (commlab))", run: runInstall})
}

func runInstall(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("install", flag.ContinueOnError)
	fs.SetOutput(stderr)
	user := fs.Bool("user", false, "install for the current user: $JUPYTER_DATA_DIR or ~/.local/share/jupyter (the default)")
	sysPrefix := fs.Bool("sys-prefix", false, "install into the Python environment that runs jupyter: <sys.prefix>/share/jupyter")
	prefix := fs.String("prefix", "", "install into `DIR`/share/jupyter")
	uninstall := fs.Bool("uninstall", false, "remove the kernelspec instead of installing it")
	name := fs.String("name", install.DefaultName, "kernelspec `name`")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: commlab install [--user | --sys-prefix | --prefix DIR] [--uninstall] [--name NAME]")
		fs.PrintDefaults()
	}
	rest, err := parseInterleaved(fs, args)
	if err != nil {
		return 2
	}
	if len(rest) > 0 {
		fmt.Fprintf(stderr, "commlab install: unexpected argument %q\n", rest[0])
		fs.Usage()
		return 2
	}
	scopes := 0
	for _, set := range []bool{*user, *sysPrefix, *prefix != ""} {
		if set {
			scopes++
		}
	}
	if scopes > 1 {
		fmt.Fprintln(stderr, "commlab install: choose one of --user, --sys-prefix and --prefix")
		return 2
	}

	var dataDir, where string
	switch {
	case *prefix != "":
		dataDir, where = install.PrefixDataDir(*prefix), "--prefix "+*prefix
	case *sysPrefix:
		dataDir, where, err = install.SysPrefixDataDir()
		where = "sys.prefix from " + where
	default:
		dataDir, err = install.UserDataDir()
		where = "user data dir"
	}
	if err != nil {
		fmt.Fprintf(stderr, "commlab install: %v\n", err)
		return 1
	}

	if *uninstall {
		dir, err := install.Uninstall(dataDir, *name)
		if err != nil {
			fmt.Fprintf(stderr, "commlab install: %v\n", err)
			return 1
		}
		fmt.Fprintf(stdout, "removed kernelspec %s from %s\n", *name, dir)
		return 0
	}
	exe, err := install.Executable()
	if err != nil {
		fmt.Fprintf(stderr, "commlab install: %v\n", err)
		return 1
	}
	dir, err := install.Install(dataDir, *name, exe)
	if err != nil {
		fmt.Fprintf(stderr, "commlab install: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "installed kernelspec %s in %s (%s)\nkernel command: %s kernel {connection_file}\n", *name, dir, where, exe)
	return 0
}
