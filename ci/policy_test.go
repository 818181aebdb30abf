package ci

import (
	"bytes"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/commlab/commlab"

// levels are the packages' dependency levels, times ten so that a
// package may sit between two of them where the code showed a finer cut
// (kernel/widget sits at 5, above display). A
// package imports only commlab packages of a lower level; a new package
// must be placed here.
var levels = map[string]int{
	"units":                     -10, // the shared vocabulary, below level 0 so that level-0 packages share it
	"internal/golden":           -10, // the one golden-file test helper and its -update flag; standard library only
	"costmodel":                 0,
	"probes":                    0,
	"kernel/wire":               0,
	"kernel/display":            0,
	"atomicfile":                0,
	"exercise":                  0, // check cells; units for values with units, display by method names
	"kernel/widget":             5,
	"probes/dynlib":             5,
	"probes/hwtest":             0,  // the tests' switches that turn a missing GPU, PyTorch or nvcc from a skip into a failure
	"parse":                     0,  // the parsers' shared error shape
	"chapters":                  -5, // the chapters embedded in the binary (commlab lab, the doctor's links); no solutions
	"prose":                     5,  // the chapters' shared words for numbers and tables: units and costmodel
	"trainer/solutions":         0,  // the trainer's answers, read at run time from the clone's trainer folder (never embedded); cells and course read them (through exercise)
	"parse/internal/launcher":   0,  // launcher prefixes and pdsh labels, stripped for every text parser
	"parse/internal/textinput":  1,  // the line-oriented parsers' one reader (over parse and launcher)
	"parse/internal/jsonmatrix": 0,  // a measured matrix with NaN written as JSON null
	"parse/nccltests":           2,
	"parse/nccllog":             2,
	"parse/ncclxml":             2,
	"parse/nvbandwidth":         2,
	"parse/perftest":            2,
	"parse/ucxlog":              2, // what UCX says it chose (UCX_LOG_LEVEL=info, UCX_PROTO_INFO=y): NIXL's and UCX collectives' transports
	"parse/flightrec":           2,
	"parse/dmesg":               2, // the kernel log's GPU, NIC and PCIe events: Xid, SXid, fallen off the bus, link state, modules, AER
	"parse/hanglab":             3, // chapter 6's hang lab folder: results, stacks, and flightrec's dumps
	"parse/nvidiasmi":           2,
	"parse/rdmatools":           2,
	"parse/netcounters":         2, // NIC port counters: perfquery, sysfs counters and hw_counters, ethtool -S
	"parse/lspci":               2,
	"parse/cudasamples":         2, // p2pBandwidthLatencyTest and bandwidthTest
	"parse/torchtrace":          2,
	"costmodel/fit":             10,
	"probes/nvml":               10,
	"probes/sysfs":              10,
	"probes/cuda":               10,
	"probes/published":          10,
	"probes/topograph":          10,
	"probes/recorded":           10,
	"probes/launch":             10,
	"chart":                     10,
	"notebook":                  10,
	"kernel/conn":               10,
	"kernel/session":            10,
	"parse/files":               12, // many input files of one format at once, as commlab parse reads them: the parsers, and topograph for topo matrices
	"probes/nccl":               15,
	"probes/rdma":               15, // commlab's own verbs program (program/rdma_write.c): builds it, runs it through probes/launch
	"probes/customar":           15, // commlab's own custom all-reduce over CUDA IPC (program/customar.cu): builds it with nvcc, runs its ranks through probes/launch
	"probes/child":              16, // one probe in a child process of the commlab binary: a typed request in, a run out (cuda, nccl, launch)
	"probes/measure":            17,
	"probes/overlap":            18, // the overlap benchmark's runs: launch, recorded, torchtrace, and measure's banner
	"probes/kvxfer":             18, // the KV transfer through NIXL (kv_nixl.py, embedded in probes/launch): launch, recorded, and measure's banner
	"probes/c10dlab":            18, // chapter 5's c10d experiments: launch, recorded, and measure's banner
	"probes/cli":                19, // what the probe verbs share: flags, printing and saving a run, tool and script probe outputs
	"doctor":                    18, // the checks and verdicts over probes, parsers and costmodel, and the live evidence (nvml, sysfs); below cells, which extracts it
	"notebook/literate":         20,
	"notebook/export":           20,
	"doctor/report":             25, // the doctor's page as Markdown and HTML blocks; cells draws it through notebook/export
	"course":                    5,  // the trainer's nbgrader course: the chapters' source notebooks with their solutions, as nbformat JSON (the command parses the chapters)
	"kernel":                    30,
	"notebook/runner":           30,
	"cells":                     35, // the door: symbol tables, renderers and solutions cells see, handed to kernel and notebook/runner
	"install":                   40,
	"":                          50, // the commlab command
	"ci":                        50,
	"ci/pythons":                0, // the Python interpreters tests drive Jupyter's clients with; standard library only
}

// The two wings and the door. The notebook machine is a generic Go
// Jupyter kernel and headless runner; the subject is everything about GPU
// communication (costmodel, probes, parse, chart, prose, exercise, doctor,
// chapters, and any new top-level folder). Neither imports the other, even
// through dependencies: what crosses is joined in cells (the door) or in the
// commlab command. units, atomicfile and the tests' internal/golden are
// leaves both may import.
var (
	machine      = []string{"kernel", "notebook", "install"} // and the folders under them
	sharedLeaves = []string{"units", "atomicfile", "internal/golden"}
	joins        = []string{"cells", "", "ci"} // "" is the commlab command; ci and the folders under it
)

// wing says which side of the house a package (relative to the module) is
// on: "machine", "leaf", "join" or "subject".
func wing(rel string) string {
	under := func(roots []string) bool {
		for _, r := range roots {
			if rel == r || r != "" && strings.HasPrefix(rel, r+"/") {
				return true
			}
		}
		return false
	}
	switch {
	case under(machine):
		return "machine"
	case under(sharedLeaves):
		return "leaf"
	case under(joins):
		return "join"
	}
	return "subject"
}

// outside systems and the one package each may enter through.
var gateways = map[string][]string{
	"github.com/go-zeromq/zmq4":             {"kernel/conn"},
	"golang.org/x/net/html":                 {"notebook/export"}, // tables and text of a finished page (polish.go)
	"github.com/traefik/yaegi":              {"kernel/session"},
	"github.com/NVIDIA/go-nvml":             {"probes/nvml"},
	"gonum.org/v1/plot":                     {"chart", "cells"}, // cells: the generated tables cells import
	"github.com/nlpodyssey/gopickle":        {"parse/flightrec"},
	"github.com/yuin/goldmark":              {"notebook/export"},
	"github.com/alecthomas/chroma":          {"notebook/export"},
	"github.com/santhosh-tekuri/jsonschema": {"notebook"},
}

// dynamicLoader is the one package that may call dlopen: the C libraries
// commlab loads at run time (CUDA, NCCL) enter through it.
const dynamicLoader = "probes/dynlib"

// TestOneDynamicLoader holds that only probes/dynlib includes dlfcn.h or
// calls dlopen and dlsym; other packages bind the symbols it looks up.
func TestOneDynamicLoader(t *testing.T) {
	err := filepath.WalkDir("..", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") && path != ".." || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel("..", path)
		if filepath.ToSlash(filepath.Dir(rel)) == dynamicLoader {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, call := range []string{"dlfcn.h", "dlopen(", "dlsym("} {
			if bytes.Contains(src, []byte(call)) {
				t.Errorf("%s uses %s: libraries are loaded only through %s", rel, call, dynamicLoader)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

type pkgInfo struct {
	rel     string
	imports []string
}

func listPackages(t *testing.T) []pkgInfo {
	t.Helper()
	out, err := exec.Command("go", "list", "-e", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []pkgInfo
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		rel := strings.TrimPrefix(strings.TrimPrefix(f[0], module), "/")
		pkgs = append(pkgs, pkgInfo{rel: rel, imports: f[1:]})
	}
	return pkgs
}

// listDeps maps each package of the module to the module's packages it
// depends on, directly or through others (go list's Deps), and its direct
// imports.
func listDeps(t *testing.T) (deps, imports map[string][]string) {
	t.Helper()
	out, err := exec.Command("go", "list", "-e", "-f", "{{.ImportPath}}|{{join .Imports \" \"}}|{{join .Deps \" \"}}", module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	rel := func(paths string) []string {
		var in []string
		for _, p := range strings.Fields(paths) {
			if p == module || strings.HasPrefix(p, module+"/") {
				in = append(in, strings.TrimPrefix(strings.TrimPrefix(p, module), "/"))
			}
		}
		return in
	}
	deps, imports = map[string][]string{}, map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Split(line, "|")
		if len(f) != 3 {
			t.Fatalf("go list: %q", line)
		}
		p := strings.TrimPrefix(strings.TrimPrefix(f[0], module), "/")
		imports[p], deps[p] = rel(f[1]), rel(f[2])
	}
	return deps, imports
}

// through names the direct import of p by which p reaches dep.
func through(deps, imports map[string][]string, p, dep string) string {
	for _, imp := range imports[p] {
		if imp == dep {
			return "directly"
		}
	}
	for _, imp := range imports[p] {
		for _, d := range deps[imp] {
			if d == dep {
				return "through " + displayRel(imp)
			}
		}
	}
	return "through its dependencies"
}

func displayRel(rel string) string {
	if rel == "" {
		return "the commlab command"
	}
	return rel
}

// TestMachineNeverImportsSubject holds that the notebook machine stays a
// generic Go kernel and runner: no package of kernel/..., notebook/... or
// install depends on the GPU subject, even through another package.
func TestMachineNeverImportsSubject(t *testing.T) {
	deps, imports := listDeps(t)
	for _, p := range slices.Sorted(maps.Keys(deps)) {
		if wing(p) != "machine" {
			continue
		}
		for _, d := range deps[p] {
			if wing(d) == "subject" || wing(d) == "join" {
				t.Errorf("%s (the notebook machine) imports %s (%s), %s: the machine never imports the subject; "+
					"define a hook in the machine (a field of its Options: an interface, a func, an fs.FS, a table) and fill it in package cells, "+
					"which the commlab command hands to the kernel and the runner", p, d, wing(d), through(deps, imports, p, d))
			}
		}
	}
}

// TestSubjectNeverImportsMachine holds that the GPU subject knows nothing
// of notebooks or Jupyter: no subject package depends on kernel/...,
// notebook/... or install, even through another package; only cells and
// the commlab command (and ci) join the two.
func TestSubjectNeverImportsMachine(t *testing.T) {
	deps, imports := listDeps(t)
	for _, p := range slices.Sorted(maps.Keys(deps)) {
		if wing(p) != "subject" {
			continue
		}
		for _, d := range deps[p] {
			if wing(d) == "machine" || wing(d) == "join" {
				t.Errorf("%s (the GPU subject) imports %s (%s), %s: the subject never imports the notebook machine; "+
					"return neutral values (text, HTML, a struct such as doctor/report.Page) and turn them into cells' displays or pages in package cells "+
					"(or in the commlab command)", p, displayRel(d), wing(d), through(deps, imports, p, d))
			}
		}
	}
}

// TestWingsKnowEveryPackage: each package of the module sits on one side.
func TestWingsKnowEveryPackage(t *testing.T) {
	seen := map[string]bool{}
	for _, p := range listPackages(t) {
		seen[wing(p.rel)] = true
	}
	for _, w := range []string{"machine", "subject", "leaf", "join"} {
		if !seen[w] {
			t.Errorf("no package is %s: the wings in ci/policy_test.go no longer match the module's folders", w)
		}
	}
}

func TestDependencyLevels(t *testing.T) {
	for _, p := range listPackages(t) {
		level, ok := levels[p.rel]
		if !ok {
			t.Errorf("package %q has no level: place it in ci/policy_test.go (levels x10)", p.rel)
			continue
		}
		for _, imp := range p.imports {
			if !strings.HasPrefix(imp, module) {
				continue
			}
			dep := strings.TrimPrefix(strings.TrimPrefix(imp, module), "/")
			if dl, ok := levels[dep]; ok && dl >= level {
				t.Errorf("%s (level %d) imports %s (level %d): only lower levels may be imported (levels x10)", p.rel, level, dep, dl)
			}
			if (strings.HasPrefix(p.rel, "costmodel") && strings.HasPrefix(dep, "probes")) ||
				(strings.HasPrefix(p.rel, "probes") && strings.HasPrefix(dep, "costmodel")) {
				t.Errorf("%s imports %s: costmodel and probes do not know each other", p.rel, dep)
			}
			if strings.HasPrefix(dep, "kernel") && level < 30 && !strings.HasPrefix(p.rel, "kernel") {
				t.Errorf("%s imports %s: nothing below level 3 imports the kernel", p.rel, dep)
			}
		}
	}
}

func TestOneGatewayPerOutsideSystem(t *testing.T) {
	for _, p := range listPackages(t) {
		for _, imp := range p.imports {
			for system, allowed := range gateways {
				if imp != system && !strings.HasPrefix(imp, system+"/") && !strings.HasPrefix(imp, system+"/v") {
					continue
				}
				ok := false
				for _, a := range allowed {
					if p.rel == a {
						ok = true
					}
				}
				if !ok {
					t.Errorf("%s imports %s: %s enters only through %v", p.rel, imp, system, allowed)
				}
			}
		}
	}
}

func TestNoUtilPackages(t *testing.T) {
	for _, p := range listPackages(t) {
		base := filepath.Base(p.rel)
		if base == "util" || base == "utils" || base == "common" || base == "helpers" {
			t.Errorf("package %q: name a package for what it owns", p.rel)
		}
	}
}

// TestGeneratedSymbolsUpToDate regenerates cells' symbol tables into a
// temporary directory and compares them with the checked-in ones.
func TestGeneratedSymbolsUpToDate(t *testing.T) {
	tmp := t.TempDir()
	dir := filepath.Join("..", "cells")
	cmd := exec.Command("go", "run", "generate.go", "-out", tmp)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("generate: %v\n%s", err, out)
	}
	want, _ := filepath.Glob(filepath.Join(tmp, "*.go"))
	// The generated tables are the files yaegi extract marks.
	all, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	var have []string
	for _, f := range all {
		if b, err := os.ReadFile(f); err == nil && bytes.HasPrefix(b, []byte("// Code generated by 'yaegi extract")) {
			have = append(have, f)
		}
	}
	names := func(paths []string) []string {
		var n []string
		for _, p := range paths {
			n = append(n, filepath.Base(p))
		}
		sort.Strings(n)
		return n
	}
	if strings.Join(names(want), " ") != strings.Join(names(have), " ") {
		t.Fatalf("cells' generated tables differ: generated %v, checked in %v; run make generate (or go generate in cells/)", names(want), names(have))
	}
	for _, w := range want {
		a, _ := os.ReadFile(w)
		b, _ := os.ReadFile(filepath.Join(dir, filepath.Base(w)))
		if !bytes.Equal(a, b) {
			t.Errorf("cells/%s is stale: run make generate (or go generate in cells/)", filepath.Base(w))
		}
	}
}
