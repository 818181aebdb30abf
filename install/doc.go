// Package install writes and removes the commlab kernelspec: the directory
// kernels/<name>/ holding kernel.json and the logos, placed where
// `jupyter kernelspec list` looks for it; and the widgets' front end for the
// classic Notebook: the nbextension commlab-widgets (nbextensions/ in the
// same data directory) and the file enabling it
// (<config>/nbconfig/notebook.d/commlab-widgets.json, where config is
// $JUPYTER_CONFIG_DIR or ~/.jupyter for the user, <prefix>/etc/jupyter for a
// prefix).
//
// The front end is ipywidgets 8's @jupyter-widgets/html-manager with the
// controls, bundled from npm by `make widgets` (install/widgets, pinned by
// its package-lock.json) into install/nbextension beside the hand-written
// notebook glue, extension.js. The bundle is committed and embedded, so
// neither building commlab nor installing it needs npm or a network;
// Debian's notebook ships only ipywidgets 6, which cannot read protocol 2.1.
//
// The kernel.json template and the logos are embedded (go:embed). The logos
// are drawn by gen_logos.go (`go generate`): four GPUs on a Go-cyan tile,
// joined by ring and cross links.
//
// Where a kernelspec goes, by scope, following jupyter_core's paths:
//   - user: $JUPYTER_DATA_DIR if set; else on Linux and other Unix
//     $XDG_DATA_HOME/jupyter or ~/.local/share/jupyter, on macOS
//     ~/Library/Jupyter, on Windows %APPDATA%\jupyter.
//   - sys-prefix: <sys.prefix>/share/jupyter, where sys.prefix is the first of:
//     $VIRTUAL_ENV; $CONDA_PREFIX; the virtual environment whose bin holds
//     the first `python3` on PATH, when it comes before the first `jupyter`
//     (the venv's bin first on PATH, activated or not); the prefix of the
//     Python interpreter named on the `#!` line of the `jupyter` found on
//     PATH (the Python that runs jupyter); the prefix of `python3` on PATH.
//     A virtual environment that is gone, or whose python points nowhere, is
//     an error naming how to make it anew (ErrBrokenVenv), never a reason to
//     install somewhere else.
//
// After an install into a Python environment, CheckFrontEnds says what keeps
// its JupyterLab or Notebook 7 from drawing widgets (no jupyterlab_widgets,
// or ipywidgets 7's), and SharedButNotRunnable catches a shared environment
// (a hub's) whose users could read the kernelspec but not run the kernel.
// A folder the user may not write is ErrNotWritable, for the command to
// name the fix (the environment's owner installs, or --user).
//   - prefix DIR: DIR/share/jupyter.
//
// install owns file placement only. It does not start kernels or talk to
// Jupyter, and it does not decide the kernel's command line beyond the argv
// template.
package install
