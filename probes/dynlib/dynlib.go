package dynlib

/*
#cgo LDFLAGS: -ldl
#define _GNU_SOURCE
#include <dlfcn.h>
#include "dynlib.h"
#include <stdlib.h>
#include <string.h>

// dl_open opens name; on failure *err is a copy of dlerror's text, which
// the caller frees. dlerror's own buffer belongs to the thread, and Go may
// run the next statement on another one.
static void* dl_open(const char* name, char** err) {
	void* h = dlopen(name, RTLD_NOW | RTLD_GLOBAL);
	if (h == NULL) {
		const char* e = dlerror();
		*err = strdup(e ? e : "dlopen failed");
	}
	return h;
}

static void* dl_sym(void* h, const char* name) {
	dlerror();
	return dlsym(h, name);
}

// dl_file is the path of the loaded file that holds addr, or NULL.
static const char* dl_file(void* addr) {
	Dl_info info;
	if (addr != NULL && dladdr(addr, &info) && info.dli_fname != NULL) return info.dli_fname;
	return NULL;
}
*/
import "C"

import (
	"os"
	"slices"
	"strings"
	"unsafe"

	"github.com/commlab/commlab/probes"
)

// Spec says which library to load.
type Spec struct {
	// What the library is, in messages: "CUDA runtime".
	What string
	// Names are the sonames or paths tried in order; the first that loads
	// and defines every symbol in Need is taken.
	Names []string
	// Env names a variable that, when set, replaces Names with its value.
	Env string
	// Need lists the symbols a candidate must define to be taken.
	Need []string
	// Table, when set, is a symbol table (see Bind) whose symbols are
	// needed too; Open binds them in the library it takes.
	Table unsafe.Pointer
}

// Library is a loaded shared library.
type Library struct {
	name   string
	file   string
	handle unsafe.Pointer
}

// Name is the candidate that loaded, as given to dlopen.
func (l *Library) Name() string { return l.name }

// File is the path the dynamic linker resolved Name to (the file that
// defines the first needed symbol); empty when none was needed.
func (l *Library) File() string { return l.file }

// Open loads the first candidate of s that opens and defines every needed
// symbol. When none does, the error is a *NotFoundError.
func Open(s Spec) (*Library, error) {
	candidates, env := s.Names, ""
	if s.Env != "" {
		if v := os.Getenv(s.Env); v != "" {
			candidates, env = []string{v}, s.Env
		}
	}
	need := slices.Concat(s.Need, names(s.Table))
	nf := &NotFoundError{What: s.What, Env: env}
	for _, name := range candidates {
		l, reason := open(name, need)
		if l != nil {
			return l, l.Bind(s.Table)
		}
		nf.Tried = append(nf.Tried, name)
		nf.Reasons = append(nf.Reasons, reason)
	}
	return nil, nf
}

// open loads name and checks need; when it fails, reason says why.
func open(name string, need []string) (*Library, string) {
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	var cerr *C.char
	h := C.dl_open(cname, &cerr)
	if h == nil {
		defer C.free(unsafe.Pointer(cerr))
		return nil, C.GoString(cerr)
	}
	l := &Library{name: name, handle: h}
	for i, sym := range need {
		p := l.lookup(sym)
		if p == nil {
			C.dlclose(h)
			return nil, (&MissingSymbolError{Library: name, Symbol: sym}).Error()
		}
		if i == 0 {
			l.file = FileOf(p)
		}
	}
	return l, ""
}

func (l *Library) lookup(name string) unsafe.Pointer {
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	return C.dl_sym(l.handle, cname)
}

// where names the library in messages: its file where known.
func (l *Library) where() string {
	if l.file != "" {
		return l.file
	}
	return l.name
}

// Symbol returns the address of name, or a *MissingSymbolError.
func (l *Library) Symbol(name string) (unsafe.Pointer, error) {
	if p := l.lookup(name); p != nil {
		return p, nil
	}
	return nil, &MissingSymbolError{Library: l.where(), Symbol: name}
}

// FileOf is the path of the loaded file that holds address p (dladdr),
// empty when none does.
func FileOf(p unsafe.Pointer) string {
	if f := C.dl_file(p); f != nil {
		return C.GoString(f)
	}
	return ""
}

// A symbol table is what a cgo preamble hands to Spec.Table, Bind and
// BindOptional: a C array of dynlib_entry (dynlib.h) ending in
// { NULL, NULL }, one entry per function pointer the preamble declares.
// dynlib.h's DYNLIB_TABLE builds the pointers and the table from one
// X-macro list of the symbols. entry is dynlib_entry's layout.
type entry struct {
	name *byte // a C string
	slot *unsafe.Pointer
}

// entry and dynlib_entry have one size (a build error otherwise).
var (
	_ [unsafe.Sizeof(entry{}) - unsafe.Sizeof(C.dynlib_entry{})]struct{}
	_ [unsafe.Sizeof(C.dynlib_entry{}) - unsafe.Sizeof(entry{})]struct{}
)

func (e entry) symbol() string { return C.GoString((*C.char)(unsafe.Pointer(e.name))) }

func entries(table unsafe.Pointer) []entry {
	var es []entry
	for p := (*entry)(table); p != nil && p.name != nil; p = (*entry)(unsafe.Add(unsafe.Pointer(p), unsafe.Sizeof(entry{}))) {
		es = append(es, *p)
	}
	return es
}

// names lists the symbols of a table.
func names(table unsafe.Pointer) []string {
	var names []string
	for _, e := range entries(table) {
		names = append(names, e.symbol())
	}
	return names
}

// Bind stores the address of every symbol of table in its slot; the first
// one missing gives a *MissingSymbolError and leaves the rest unset.
func (l *Library) Bind(table unsafe.Pointer) error {
	for _, e := range entries(table) {
		p, err := l.Symbol(e.symbol())
		if err != nil {
			return err
		}
		*e.slot = p
	}
	return nil
}

// BindOptional stores each symbol's address, or nil where the library
// lacks it (a newer API the caller can do without).
func (l *Library) BindOptional(table unsafe.Pointer) {
	for _, e := range entries(table) {
		*e.slot = l.lookup(e.symbol())
	}
}

// NotFoundError says no candidate of a library could be taken.
type NotFoundError struct {
	What string // "CUDA runtime"
	// Env is the variable whose value was the only candidate, if it was set.
	Env     string
	Tried   []string // the candidates, in order
	Reasons []string // why each was not taken: dlerror's text or the missing symbol
}

// Error reads "CUDA runtime unavailable: libcudart.so.13, libcudart.so
// not found", with dlerror's text for candidates that exist but did not
// load.
func (e *NotFoundError) Error() string {
	var parts, absent []string
	for i, name := range e.Tried {
		label, reason := name, e.Reasons[i]
		if e.Env != "" {
			label = e.Env + "=" + name
		}
		switch {
		case absentFile(reason):
			absent = append(absent, label)
		case strings.HasPrefix(reason, name):
			parts = append(parts, label+reason[len(name):])
		default:
			parts = append(parts, label+": "+reason)
		}
	}
	if len(absent) > 0 {
		parts = append(parts, strings.Join(absent, ", ")+" not found")
	}
	if len(parts) == 0 {
		parts = append(parts, "no candidate to try")
	}
	return e.What + " unavailable: " + strings.Join(parts, "; ")
}

// Unwrap makes errors.Is(err, probes.ErrUnavailable) hold.
func (e *NotFoundError) Unwrap() error { return probes.ErrUnavailable }

// absentFile reports whether dlerror's text says the file does not exist
// (glibc and musl say "No such file or directory").
func absentFile(reason string) bool {
	return strings.Contains(strings.ToLower(reason), "no such file")
}

// MissingSymbolError says a loaded library lacks a symbol: it is older
// than the caller needs.
type MissingSymbolError struct {
	Library string // the file, or the name it was opened by
	Symbol  string
}

func (e *MissingSymbolError) Error() string {
	return e.Library + ": no symbol " + e.Symbol
}

// Unwrap makes errors.Is(err, probes.ErrUnavailable) hold.
func (e *MissingSymbolError) Unwrap() error { return probes.ErrUnavailable }

var (
	_ error = (*NotFoundError)(nil)
	_ error = (*MissingSymbolError)(nil)
)
