# commlab: a Go Jupyter kernel and literate lab for GPU communication.
# `make lab` builds, registers the kernel and runs every chapter into out/;
# `make test` is what CI runs.

GO      ?= go
BIN     ?= ./commlab
OUT     ?= out
PYTHON  ?= /usr/bin/python3
FUZZTIME ?= 20s

.PHONY: all build install-kernel lab check-chapters test vet fmt-check generate bench bench-kernel bench-gpu widgets fuzz clean

all: build

build:
	$(GO) build -o $(BIN) .

install-kernel: build
	$(BIN) install --user

# `make lab`: build, register the kernel for this user, run every chapter
# headless into $(OUT)/ (executed notebooks, one HTML page each and
# $(OUT)/index.html). Without a GPU the chapters use recorded runs.
lab: install-kernel
	$(BIN) run --out $(OUT) --html chapters/*.md
	@echo "lab: open $(OUT)/index.html"

# What CI checks beyond the Go tests: chapters and notebooks agree, and
# every chapter runs headless.
check-chapters: build
	$(BIN) sync --check
	$(BIN) run --out $(OUT)/ci --html chapters/*.md

test: fmt-check vet widgets check-chapters
	$(GO) test -count=1 -timeout 30m ./...

# The browser test's ipywidgets 8 front end, bundled from npm (skipped when
# npm is missing; the test then skips, or fails under COMMLAB_REQUIRE_BROWSER).
widgets:
	@if command -v npm >/dev/null; then \
		cd ci/browser/widgets && npm ci --no-audit --no-fund --loglevel=error && npm run --silent build; \
	else echo "widgets: npm not found; the browser test will skip"; fi

vet:
	$(GO) vet ./...

fmt-check:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt needed:"; echo "$$unformatted"; exit 1; fi

generate:
	$(GO) generate ./...

# Benchmarks: Go benchmarks of every package, then the kernel's protocol
# numbers against ipykernel through the same jupyter_client script.
bench: build
	$(GO) test -run '^$$' -bench . -benchtime 1x ./... | grep -E '^(Benchmark|ok|PASS|FAIL|---)' || true
	$(GO) test -run '^$$' -bench . ./costmodel/... ./kernel/... ./lab/... 2>/dev/null | grep -E '^Benchmark' || true
	$(MAKE) bench-kernel

bench-kernel: build
	$(PYTHON) kernel/testdata/bench/kernel_bench.py $(BIN)

# On a GPU machine (binary built with CGO_ENABLED=1): copy bandwidths,
# latencies and NCCL sweeps against PyTorch in the same run.
bench-gpu: build
	mkdir -p .devicebin && cp $(BIN) .devicebin/commlab
	OUT=$${OUT_DIR:-/tmp/commlab-bench} bash probes/gpubench/device_run.sh

fuzz:
	@for pkg in $$($(GO) list ./...); do \
		for target in $$($(GO) test -list '^Fuzz' $$pkg 2>/dev/null | grep '^Fuzz'); do \
			echo "fuzz $$pkg $$target"; \
			$(GO) test -run '^$$' -fuzz "^$$target$$" -fuzztime $(FUZZTIME) $$pkg || exit 1; \
		done; \
	done

clean:
	rm -rf $(BIN) $(OUT)
