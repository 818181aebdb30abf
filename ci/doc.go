// Package ci holds the project's own policy checks, run by `go test`: the
// packages' dependency levels, one package per outside system, and
// the reproducibility of generated code. It also keeps a workflow users can
// copy to re-run the notebooks in their own CI.
//
// Its tests also meet the front ends our readers use, each started for real
// on loopback and driven in headless Chromium: Debian's classic Notebook
// (browser_test.go), JupyterLab 4 and Notebook 7 (lab_browser_test.go) and a
// JupyterHub team session (hub_test.go), the last three from the virtual
// environment that `make venv` makes from requirements.txt (every Python
// package pinned) with the hub's proxy from package.json. `commlab install`
// as a hub's users meet it is install_test.go. jupyterhub_config.py is the
// trainer's hub configuration the README sets up. Tests needing a tool skip
// with the reason when it is absent, and fail instead under
// COMMLAB_REQUIRE_JUPYTER / COMMLAB_REQUIRE_BROWSER, as .ci/run sets them.
package ci
