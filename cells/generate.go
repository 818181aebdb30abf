//go:build ignore

// generate writes the yaegi symbol tables of the packages notebook cells
// may import: `go run generate.go -out DIR` (go generate runs it with
// -out .). The ci package runs it into a temporary directory and fails when
// the checked-in tables differ.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/traefik/yaegi/extract"
)

// preloaded lists the packages cells can import. Keep it to packages with a
// plain API: yaegi extract silently drops generic functions and types.
var preloaded = []string{
	"github.com/commlab/commlab/kernel/display",
	"github.com/commlab/commlab/kernel/widget",
	"github.com/commlab/commlab/costmodel",
	"github.com/commlab/commlab/costmodel/fit",
	"github.com/commlab/commlab/probes",
	"github.com/commlab/commlab/probes/published",
	"github.com/commlab/commlab/probes/sysfs",
	"github.com/commlab/commlab/probes/nvml",
	"github.com/commlab/commlab/probes/topograph",
	"github.com/commlab/commlab/parse/nccltests",
	"github.com/commlab/commlab/parse/nccllog",
	"github.com/commlab/commlab/parse/ncclxml",
	"github.com/commlab/commlab/parse",
	"github.com/commlab/commlab/parse/nvidiasmi",
	"github.com/commlab/commlab/parse/nvbandwidth",
	"github.com/commlab/commlab/parse/perftest",
	"github.com/commlab/commlab/parse/rdmatools",
	"github.com/commlab/commlab/parse/flightrec",
	"github.com/commlab/commlab/parse/lspci",
	"github.com/commlab/commlab/parse/cudasamples",
	"github.com/commlab/commlab/parse/hanglab",
	"github.com/commlab/commlab/parse/torchtrace",
	"github.com/commlab/commlab/parse/ucxlog",
	"github.com/commlab/commlab/probes/cuda",
	"github.com/commlab/commlab/probes/nccl",
	"github.com/commlab/commlab/probes/recorded",
	"github.com/commlab/commlab/probes/measure",
	"github.com/commlab/commlab/probes/overlap",
	"github.com/commlab/commlab/probes/kvxfer",
	"github.com/commlab/commlab/probes/c10dlab",
	"github.com/commlab/commlab/probes/rdma",
	"github.com/commlab/commlab/probes/customar",
	"github.com/commlab/commlab/chart",
	"github.com/commlab/commlab/doctor",
	"github.com/commlab/commlab/exercise",
	"github.com/commlab/commlab/prose",
	"github.com/commlab/commlab/units",
	// gonum/plot and gonum, the project's plotting and numeric libraries,
	// for figures and numbers a cell builds itself.
	"gonum.org/v1/plot",
	"gonum.org/v1/plot/plotter",
	"gonum.org/v1/plot/plotutil",
	"gonum.org/v1/plot/vg",
	"gonum.org/v1/plot/vg/draw",
	"gonum.org/v1/gonum/floats",
	"gonum.org/v1/gonum/mat",
	"gonum.org/v1/gonum/stat",
}

func main() {
	out := flag.String("out", ".", "directory to write the tables into")
	flag.Parse()
	ext := extract.Extractor{Dest: "cells"}
	for _, pkg := range preloaded {
		var b bytes.Buffer
		if _, err := ext.Extract(pkg, "", &b); err != nil {
			fmt.Fprintf(os.Stderr, "generate: %s: %v\n", pkg, err)
			os.Exit(1)
		}
		name := strings.NewReplacer("/", "-", ".", "_").Replace(pkg) + ".go"
		if err := os.WriteFile(filepath.Join(*out, name), b.Bytes(), 0o644); err != nil {
			fmt.Fprintf(os.Stderr, "generate: %v\n", err)
			os.Exit(1)
		}
	}
}
