# commlab: a Go Jupyter kernel and literate lab for GPU communication.
# `make lab` builds, registers the kernel and runs every chapter into out/;
# `make test` is what CI runs.

GO      ?= go
BIN     ?= ./commlab
OUT     ?= out
PYTHON  ?= /usr/bin/python3
VENV    ?= .venv
FUZZTIME ?= 20s
# What a build with an empty cache takes on 2 cores (README: "How long
# the build takes"); `make build` prints it before it starts.
COLD_BUILD ?= 1 to 5 minutes

# go-nvml's cgo calls NVML functions that nvml.h marks deprecated; the C
# compiler warns about each (about 170 lines on a fresh build), which reads
# like a failed build. Go's default cgo flags plus the one that silences
# those warnings, for every go command below; the module is not edited.
CGO_CFLAGS ?= -O2 -g -Wno-deprecated-declarations
export CGO_CFLAGS

.PHONY: all build install-kernel lab hub-local check-chapters test test-gpu test-gpu-build vet fmt-check generate bench bench-chapters bench-scale bench-kernel bench-gpu widgets check-widgets fuzz clean calibration hang-cpu venv

all: build

# A cold build compiles about 480 packages (yaegi's interpreter and its
# standard-library symbol tables, net/http, gonum, go-nvml's cgo among
# them) and prints nothing while it does (README: "How long the build
# takes"), so say so first. With the build cache warm it takes seconds.
# -ldflags=-w leaves out the DWARF tables (debuggers'; stack traces and
# panics use the pclntab, which stays): a relink after an edit costs
# about 40% less CPU (1.4-1.9 s instead of 2.9-3.0 s, measured 2026-12-06).
BUILDFLAGS ?= -ldflags=-w
build:
	@echo "build: go build -o $(BIN) . (the first build: about $(COLD_BUILD) on 2 cores, nothing printed meanwhile; later ones seconds)"
	@start=$$(date +%s); $(GO) build $(BUILDFLAGS) -o $(BIN) . && echo "build: done in $$(( $$(date +%s) - start )) s"

install-kernel: build
	$(BIN) install --user

# `make lab`: build, register the kernel for this user, run every chapter
# headless into $(OUT)/ (executed notebooks, one HTML page each and
# $(OUT)/index.html). Without a GPU the chapters use recorded runs.
lab: install-kernel
	@echo "lab: running every chapter into $(OUT)/ (about 30 s)"
	$(BIN) run --out $(OUT) --html chapters/*.md
	@echo "lab: open $(OUT)/index.html; live notebooks: jupyter notebook notebooks/ (or jupyter lab notebooks/)"

# `make venv`: the front ends and Jupyter tools of ci/requirements.txt
# (JupyterLab 4, Notebook 7, ipywidgets 8, JupyterHub, papermill, jupytext,
# nbclient, jupyter_kernel_test; every version pinned) in $(VENV), made by
# $(PYTHON) -m venv (never installing into that Python itself), and the
# hub's proxy (configurable-http-proxy, ci/package-lock.json) in
# ci/node_modules. A venv whose python points nowhere is made anew. Then
# commlab is built into $(VENV)/bin and registered there with
# `commlab install --sys-prefix`, so $(VENV)/bin/jupyter lab offers it.
#
# The wheels are downloaded once into $(WHEELS), inside the checkout: the
# steps of one CI run share them (every venv of the run installs from there
# offline) and the next run's fresh clone starts without them.
WHEELS  ?= .cache/wheels

venv: $(VENV)/.requirements ci/node_modules/.package-lock.json
	$(GO) build -o $(VENV)/bin/commlab.tmp . && mv $(VENV)/bin/commlab.tmp $(VENV)/bin/commlab
	PATH="$(abspath $(VENV))/bin:$$PATH" VIRTUAL_ENV= commlab install --sys-prefix

$(VENV)/bin/python:
	@if [ -e $(VENV) ]; then echo "venv: $(VENV)/bin/python points nowhere (its Python moved or was removed); making $(VENV) anew"; rm -rf $(VENV); fi
	@$(PYTHON) -m venv $(VENV) || { echo "venv: $(PYTHON) -m venv failed; on Debian: apt-get install python3-venv"; exit 1; }

$(WHEELS)/.requirements: ci/requirements.txt | $(VENV)/bin/python
	$(VENV)/bin/python -m pip download --quiet --disable-pip-version-check -d $(WHEELS) -r ci/requirements.txt
	@touch $@

$(VENV)/.requirements: $(WHEELS)/.requirements | $(VENV)/bin/python
	$(VENV)/bin/python -m pip install --quiet --disable-pip-version-check --no-index --find-links $(WHEELS) -r ci/requirements.txt
	$(VENV)/bin/python -m pip install --quiet --disable-pip-version-check --no-index --no-deps --no-build-isolation -e ./python/commlab-papermill
	$(VENV)/bin/python -m pip check
	@touch $@

ci/node_modules/.package-lock.json: ci/package-lock.json
	@command -v npm >/dev/null || { echo "venv: npm not found: the hub's proxy needs Node.js 22.12 or newer (configurable-http-proxy 5.3.0 requires commander 15, whose engines field asks >=22.12.0)"; exit 1; }
	cd ci && npm ci --no-audit --no-fund --loglevel=error

# `make hub-local`: a team session to try on this machine, after `make
# venv`: JupyterHub from $(VENV) on http://127.0.0.1:8000 with its dummy
# login (any name, any password), every user's files in a temporary
# folder (ci/jupyterhub_local_config.py). Ctrl-C ends it; the folder is
# removed then. The real session (README, Front ends) uses the machine's
# accounts.
hub-local: $(VENV)/.requirements ci/node_modules/.package-lock.json
	@dir=$$(mktemp -d -t commlab-hub.XXXXXX); trap 'rm -rf "$$dir"' EXIT INT TERM; \
	echo "hub-local: http://127.0.0.1:8000 (any name, any password); files in $$dir"; \
	cd "$$dir" && PATH="$(abspath $(VENV))/bin:$$PATH" COMMLAB_HUB_DIR="$$dir" COMMLAB_NOTEBOOKS="$(abspath notebooks)" \
	  COMMLAB_VENV_BIN="$(abspath $(VENV))/bin" COMMLAB_PROXY="$(abspath ci/node_modules/.bin/configurable-http-proxy)" \
	  "$(abspath $(VENV))/bin/jupyterhub" -f "$(abspath ci/jupyterhub_local_config.py)"

# What CI checks beyond the Go tests: chapters and notebooks agree; every
# chapter runs headless as shipped, each exercise saying "not answered
# yet"; and with the trainer's solutions, after which every check says
# right (commlab run fails otherwise).
check-chapters: build
	$(BIN) sync --check
	$(BIN) run --out $(OUT)/ci --html --expect-exercises blank chapters/*.md
	$(BIN) run --out $(OUT)/ci-solutions --solutions chapters/*.md

test: fmt-check vet check-widgets check-chapters
	$(GO) test -count=1 -timeout 30m ./...

# The ipywidgets 8 front end `commlab install` puts into the classic
# Notebook: bundled from npm (install/widgets, versions pinned by its
# package-lock.json) into install/nbextension, which is committed and
# embedded in the binary, so building commlab needs no npm. `make widgets`
# rebuilds it; check-widgets (part of `make test`) fails when the committed
# bundle is not what the pinned packages build (skipped without npm).
widgets:
	@if command -v npm >/dev/null; then \
		cd install/widgets && npm ci --no-audit --no-fund --loglevel=error && npm run --silent build; \
	else echo "widgets: npm not found; install/nbextension is left as committed"; fi

check-widgets: widgets
	@if command -v npm >/dev/null && command -v git >/dev/null && git rev-parse --git-dir >/dev/null 2>&1; then \
		git diff --exit-code --stat -- install/nbextension/commlab-widgets.js install/nbextension/commlab-widgets.css || \
		{ echo "install/nbextension differs from what make widgets builds: commit the rebuilt bundle"; exit 1; }; \
	fi

vet:
	$(GO) vet ./...

fmt-check:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt needed:"; echo "$$unformatted"; exit 1; fi

generate:
	$(GO) generate ./...

# Benchmarks: Go benchmarks of every package; every chapter headless on
# recorded runs, once, on 2 Ps (the chapters' budget: under 60 s on 2
# cores; s/run is the number, per-chapter seconds follow it); then the
# kernel's protocol numbers against ipykernel through the same
# jupyter_client script.
bench: build
	$(GO) test -run '^$$' -bench . -skip '^BenchmarkChapters$$' -benchtime 1x ./... | grep -E '^(Benchmark|ok|PASS|FAIL|---)' || true
	$(GO) test -run '^$$' -bench . -skip '^BenchmarkChapters$$' ./costmodel/... ./kernel/... ./notebook/... 2>/dev/null | grep -E '^Benchmark' || true
	$(MAKE) bench-chapters
	$(MAKE) bench-kernel

bench-chapters:
	$(GO) test -run '^$$' -bench '^BenchmarkChapters$$' -benchtime 1x -cpu 2 ./cells/ | grep -E '^(Benchmark|FAIL|---|    )'

# The doctor on a 1,024-rank job's NCCL log of 1 GB, pinned to two cores:
# time and peak memory at three sizes (best on a quiet machine).
bench-scale: build
	bash probes/gpubench/scale_doctor.sh $(BIN) 1024 1024

bench-kernel: build
	$(PYTHON) kernel/testdata/bench/kernel_bench.py $(BIN)

# On a GPU machine (binary built with CGO_ENABLED=1): copy bandwidths,
# latencies and NCCL sweeps against PyTorch in the same run.
bench-gpu: build
	mkdir -p .devicebin && cp $(BIN) .devicebin/commlab
	OUT=$${OUT_DIR:-/tmp/commlab-bench} bash probes/gpubench/device_run.sh

# `make test-gpu`: every test that needs a GPU, PyTorch or nvcc, with
# COMMLAB_REQUIRE_GPU/_TORCH/_NVCC on, so a missing one fails instead of
# skipping. The GPU machine has no Go: `make test-gpu-build` builds one
# test binary per package (CGO_ENABLED=1, symbols stripped) into
# .devicebin/tests/ and commlab into .devicebin/, and packs both into
# .devicebin/test-gpu.tar.gz (about half of 64 MiB, small enough to carry);
# there, from the repository root, `bash probes/gpubench/test_gpu.sh`
# unpacks it when .devicebin/tests is absent, runs each binary in its
# package's folder (its testdata beside it) and prints one pass/FAIL line
# per package.
GPU_TEST_PKGS ?= probes/nvml probes/cuda probes/nccl probes/customar probes/measure probes/overlap probes/c10dlab
test-gpu-build:
	rm -rf .devicebin/tests && mkdir -p .devicebin/tests
	CGO_ENABLED=1 $(GO) build -ldflags='-s -w' -o .devicebin/commlab .
	@for p in $(GPU_TEST_PKGS); do \
		CGO_ENABLED=1 $(GO) test -c -ldflags='-s -w' -o .devicebin/tests/$$(echo $$p | tr / -).test ./$$p || exit 1; \
	done
	tar -C .devicebin -czf .devicebin/test-gpu.tar.gz commlab tests
	@ls -l .devicebin/test-gpu.tar.gz

test-gpu: test-gpu-build
	bash probes/gpubench/test_gpu.sh

# Chapter 6's hang lab for real on CPU ranks: a venv with PyTorch (gloo,
# the Flight Recorder) and py-spy from the index (ci/requirements-torch.txt:
# the index's torch wheel is its CUDA build and brings the CUDA libraries it
# links against; about 1 min and 3.9 GB here, and the recipe stops first,
# saying so, where the disk has less than 5 GB free), every scenario staged by `commlab probe hang` (with each
# rank's C++ stack from gdb when gdb is on PATH) into
# $(OUT)/hang-cpu/, each run read back by commlab's Flight Recorder and
# hang lab readers (TestHangLabOnCPU), then each run's dumps printed by
# `commlab parse flight-recorder`.
TORCH_VENV ?= .venv-torch
VENV_PYTHON ?= python3
HANG_SCENARIOS ?= size order count unpaired two_comms
hang-cpu: build $(TORCH_VENV)/.installed
	PATH="$(abspath $(TORCH_VENV))/bin:$$PATH" COMMLAB_REQUIRE_TORCH=1 \
		COMMLAB_HANG_SCENARIOS="$(HANG_SCENARIOS)" COMMLAB_HANG_OUT="$(abspath $(OUT))/hang-cpu" \
		$(GO) test -count=1 -timeout 30m -run '^TestHangLabOnCPU$$' -v ./probes/launch/
	PATH="$(abspath $(TORCH_VENV))/bin:$$PATH" COMMLAB_REQUIRE_TORCH=1 \
		$(GO) test -count=1 -timeout 10m -run '^TestLiveStore$$' -v ./probes/c10dlab/
	@for s in $(HANG_SCENARIOS); do \
		if [ -d $(OUT)/hang-cpu/$$s/fr ] && [ -n "$$(ls $(OUT)/hang-cpu/$$s/fr)" ]; then \
			echo "== $$s"; $(BIN) parse flight-recorder $(OUT)/hang-cpu/$$s/fr || exit 1; \
		else echo "== $$s: no Flight Recorder dumps (the ranks ended before they could dump)"; fi; \
	done
	@echo "hang-cpu: runs under $(OUT)/hang-cpu"

TORCH_VENV_NEEDS_GB ?= 5
$(TORCH_VENV)/.installed: ci/requirements-torch.txt
	@free_kb=$$(df -Pk . | awk 'NR==2 {print $$4}'); \
	if [ "$$free_kb" -lt $$(( $(TORCH_VENV_NEEDS_GB) * 1024 * 1024 )) ]; then \
		echo "hang-cpu: $(TORCH_VENV) needs about $(TORCH_VENV_NEEDS_GB) GB free on $$(df -P . | awk 'NR==2 {print $$6}'), which has $$(( free_kb / 1024 )) MB" >&2; \
		exit 1; \
	fi
	$(VENV_PYTHON) -m venv $(TORCH_VENV)
	grep -v -e '^#' -e '^$$' ci/requirements-torch.txt | while read -r req; do \
		$(TORCH_VENV)/bin/pip install --disable-pip-version-check --no-cache-dir --no-deps -q "$$req" || exit 1; \
	done
	$(TORCH_VENV)/bin/python -c 'import torch.distributed as d; assert d.is_gloo_available(), "no gloo"'
	touch $@

fuzz:
	@for pkg in $$($(GO) list ./...); do \
		for target in $$($(GO) test -list '^Fuzz' $$pkg 2>/dev/null | grep '^Fuzz'); do \
			echo "fuzz $$pkg $$target"; \
			$(GO) test -run '^$$' -fuzz "^$$target$$" -fuzztime $(FUZZTIME) $$pkg || exit 1; \
		done; \
	done

# The cost model beside every published measurement in
# costmodel/testdata/published.tsv: measured, model and error per row
# (fails when a row is outside its limit; TestCalibration holds the same).
calibration: build
	$(BIN) model calibrate

clean:
	rm -rf $(BIN) $(OUT)
