# commlab: a Go Jupyter kernel and literate lab for GPU communication.
# `make lab` builds, registers the kernel and runs every chapter into out/;
# `make test` is what CI runs.

GO      ?= go
BIN     ?= ./commlab
OUT     ?= out
PYTHON  ?= /usr/bin/python3
FUZZTIME ?= 20s

.PHONY: all build install-kernel lab test vet fmt-check generate bench bench-kernel fuzz clean

all: build

build:
	$(GO) build -o $(BIN) .

install-kernel: build
	$(BIN) install --user

# Until the headless runner lands, `make lab` builds and registers the
# kernel and runs every chapter that exists.
lab: install-kernel
	@mkdir -p $(OUT)
	@if $(BIN) run -h >/dev/null 2>&1 && ls chapters/*.md >/dev/null 2>&1; then \
		$(BIN) run --out $(OUT) --html chapters/*.md; \
	else \
		echo "lab: no chapters to run yet; the kernel is installed (jupyter kernelspec list)"; \
	fi

test: fmt-check vet
	$(GO) test -count=1 ./...

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

fuzz:
	@for pkg in $$($(GO) list ./...); do \
		for target in $$($(GO) test -list '^Fuzz' $$pkg 2>/dev/null | grep '^Fuzz'); do \
			echo "fuzz $$pkg $$target"; \
			$(GO) test -run '^$$' -fuzz "^$$target$$" -fuzztime $(FUZZTIME) $$pkg || exit 1; \
		done; \
	done

clean:
	rm -rf $(BIN) $(OUT)
