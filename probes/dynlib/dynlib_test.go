package dynlib

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"unsafe"

	"github.com/commlab/commlab/probes"
)

// libm is a library every glibc machine has, opened by soname.
func libm(t *testing.T, need ...string) *Library {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("the sonames below are glibc's")
	}
	l, err := Open(Spec{What: "maths library", Names: []string{"libcommlab-absent.so.9", "libm.so.6"}, Need: need})
	if err != nil {
		t.Skipf("no libm.so.6 here: %v", err)
	}
	return l
}

func TestOpenTakesFirstThatLoads(t *testing.T) {
	l := libm(t, "cos")
	if l.Name() != "libm.so.6" {
		t.Errorf("Name() = %q, want libm.so.6", l.Name())
	}
	if !filepath.IsAbs(l.File()) || !strings.Contains(filepath.Base(l.File()), "libm") {
		t.Errorf("File() = %q, want the absolute path of libm", l.File())
	}
	p, err := l.Symbol("cos")
	if err != nil || p == nil {
		t.Fatalf("Symbol(cos) = %v, %v", p, err)
	}
	if FileOf(p) != l.File() {
		t.Errorf("FileOf(cos) = %q, want %q", FileOf(p), l.File())
	}
}

func TestMissingSymbol(t *testing.T) {
	l := libm(t, "cos")
	_, err := l.Symbol("commlab_no_such_symbol")
	var ms *MissingSymbolError
	if !errors.As(err, &ms) || !errors.Is(err, probes.ErrUnavailable) {
		t.Fatalf("Symbol of a missing name: %v, want a *MissingSymbolError wrapping probes.ErrUnavailable", err)
	}
	if want := l.File() + ": no symbol commlab_no_such_symbol"; err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}
}

func TestMissingLibrary(t *testing.T) {
	_, err := Open(Spec{What: "CUDA runtime", Names: []string{"libcommlab-absent.so.13", "libcommlab-absent.so"}})
	var nf *NotFoundError
	if !errors.As(err, &nf) || !errors.Is(err, probes.ErrUnavailable) {
		t.Fatalf("Open of absent libraries: %v, want a *NotFoundError wrapping probes.ErrUnavailable", err)
	}
	if want := "CUDA runtime unavailable: libcommlab-absent.so.13, libcommlab-absent.so not found"; err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}
	if len(nf.Reasons) != 2 || !strings.Contains(nf.Reasons[0], "libcommlab-absent.so.13") {
		t.Errorf("reasons %q should keep dlerror's text", nf.Reasons)
	}
}

func TestEnvOverridesNames(t *testing.T) {
	t.Setenv("COMMLAB_TEST_LIB", "/nonexistent/libcommlab.so")
	_, err := Open(Spec{What: "test library", Names: []string{"libm.so.6"}, Env: "COMMLAB_TEST_LIB"})
	if want := "test library unavailable: COMMLAB_TEST_LIB=/nonexistent/libcommlab.so not found"; err == nil || err.Error() != want {
		t.Errorf("error %v, want %q", err, want)
	}
}

func TestCandidateWithoutNeededSymbolIsSkipped(t *testing.T) {
	libm(t)
	_, err := Open(Spec{What: "maths library", Names: []string{"libm.so.6", "libcommlab-absent.so"}, Need: []string{"cos", "commlab_no_such_symbol"}})
	if want := "maths library unavailable: libm.so.6: no symbol commlab_no_such_symbol; libcommlab-absent.so not found"; err == nil || err.Error() != want {
		t.Errorf("error %v, want %q", err, want)
	}
	if !errors.Is(err, probes.ErrUnavailable) {
		t.Errorf("%v does not wrap probes.ErrUnavailable", err)
	}
}

func TestFileThatIsNoLibraryShowsDlerror(t *testing.T) {
	path := filepath.Join(t.TempDir(), "libnotelf.so")
	if err := os.WriteFile(path, []byte("not a shared object\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Open(Spec{What: "test library", Names: []string{path}})
	if err == nil || !strings.HasPrefix(err.Error(), "test library unavailable: "+path) || strings.HasSuffix(err.Error(), "not found") {
		t.Errorf("error %v: want dlerror's text for %s", err, path)
	}
}

// table builds a symbol table in Go memory, laid out as the C one.
func table(names []string, slots []unsafe.Pointer) []entry {
	t := make([]entry, 0, len(names)+1)
	for i, n := range names {
		b := append([]byte(n), 0)
		t = append(t, entry{name: &b[0], slot: &slots[i]})
	}
	return append(t, entry{})
}

func TestBind(t *testing.T) {
	l := libm(t, "cos")
	slots := make([]unsafe.Pointer, 2)
	tbl := table([]string{"cos", "sin"}, slots)
	if got := names(unsafe.Pointer(&tbl[0])); strings.Join(got, " ") != "cos sin" {
		t.Errorf("Names = %q", got)
	}
	if err := l.Bind(unsafe.Pointer(&tbl[0])); err != nil {
		t.Fatal(err)
	}
	cos, _ := l.Symbol("cos")
	if slots[0] != cos || slots[1] == nil {
		t.Errorf("Bind filled %v, want cos at %v and sin", slots, cos)
	}

	opt := make([]unsafe.Pointer, 2)
	opt[1] = unsafe.Pointer(&opt) // must be cleared
	otbl := table([]string{"cos", "commlab_no_such_symbol"}, opt)
	l.BindOptional(unsafe.Pointer(&otbl[0]))
	if opt[0] != cos || opt[1] != nil {
		t.Errorf("BindOptional filled %v", opt)
	}
	if err := l.Bind(unsafe.Pointer(&otbl[0])); !errors.Is(err, probes.ErrUnavailable) {
		t.Errorf("Bind with a missing symbol: %v", err)
	}
}

func TestOpenBindsTable(t *testing.T) {
	libm(t)
	slots := make([]unsafe.Pointer, 1)
	tbl := table([]string{"cos"}, slots)
	l, err := Open(Spec{What: "maths library", Names: []string{"libm.so.6"}, Table: unsafe.Pointer(&tbl[0])})
	if err != nil {
		t.Fatal(err)
	}
	if cos, _ := l.Symbol("cos"); slots[0] != cos || l.File() == "" {
		t.Errorf("Open bound %v, want cos at %v; File() = %q", slots[0], cos, l.File())
	}
}
