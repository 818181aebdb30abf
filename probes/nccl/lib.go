package nccl

/*
#cgo LDFLAGS: -ldl
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <stddef.h>

// No NCCL headers on the build machine: the few types and signatures used,
// as nccl.h declares them.
typedef void* ncclComm_t;
typedef int ncclResult_t;
typedef void* cudaStream_t;

static void* lib;

#define SYM(name, ret, args) typedef ret (*name##_t) args; static name##_t p_##name;
SYM(ncclGetVersion, ncclResult_t, (int*))
SYM(ncclCommInitAll, ncclResult_t, (ncclComm_t*, int, const int*))
SYM(ncclCommDestroy, ncclResult_t, (ncclComm_t))
SYM(ncclCommAbort, ncclResult_t, (ncclComm_t))
SYM(ncclCommGetAsyncError, ncclResult_t, (ncclComm_t, ncclResult_t*))
SYM(ncclGetErrorString, const char*, (ncclResult_t))
SYM(ncclGetLastError, const char*, (ncclComm_t))
SYM(ncclGroupStart, ncclResult_t, (void))
SYM(ncclGroupEnd, ncclResult_t, (void))
SYM(ncclAllReduce, ncclResult_t, (const void*, void*, size_t, int, int, ncclComm_t, cudaStream_t))
SYM(ncclBroadcast, ncclResult_t, (const void*, void*, size_t, int, int, ncclComm_t, cudaStream_t))
SYM(ncclReduce, ncclResult_t, (const void*, void*, size_t, int, int, int, ncclComm_t, cudaStream_t))
SYM(ncclAllGather, ncclResult_t, (const void*, void*, size_t, int, ncclComm_t, cudaStream_t))
SYM(ncclReduceScatter, ncclResult_t, (const void*, void*, size_t, int, int, ncclComm_t, cudaStream_t))
SYM(ncclSend, ncclResult_t, (const void*, size_t, int, int, ncclComm_t, cudaStream_t))
SYM(ncclRecv, ncclResult_t, (void*, size_t, int, int, ncclComm_t, cudaStream_t))

#define LOAD(name) p_##name = (name##_t)dlsym(lib, #name); if (p_##name == NULL) { strncpy(missing, #name, n-1); missing[n-1] = 0; return -1; }

static int nl_load(const char* path, char* missing, int n) {
	lib = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
	if (lib == NULL) { const char* e = dlerror(); strncpy(missing, e ? e : path, n-1); missing[n-1] = 0; return -2; }
	LOAD(ncclGetVersion) LOAD(ncclCommInitAll) LOAD(ncclCommDestroy) LOAD(ncclCommAbort)
	LOAD(ncclCommGetAsyncError) LOAD(ncclGetErrorString) LOAD(ncclGroupStart) LOAD(ncclGroupEnd)
	LOAD(ncclAllReduce) LOAD(ncclBroadcast) LOAD(ncclReduce) LOAD(ncclAllGather)
	LOAD(ncclReduceScatter) LOAD(ncclSend) LOAD(ncclRecv)
	p_ncclGetLastError = (ncclGetLastError_t)dlsym(lib, "ncclGetLastError"); // 2.13+; optional
	return 0;
}

// nl_path reports which file the loader actually opened.
static const char* nl_path(void) {
	Dl_info info;
	if (p_ncclGetVersion && dladdr((void*)p_ncclGetVersion, &info) && info.dli_fname) return info.dli_fname;
	return "";
}

static int n_getVersion(int* v) { return p_ncclGetVersion(v); }
static int n_commInitAll(ncclComm_t* c, int n, const int* d) { return p_ncclCommInitAll(c, n, d); }
static int n_commDestroy(ncclComm_t c) { return p_ncclCommDestroy(c); }
static int n_commAbort(ncclComm_t c) { return p_ncclCommAbort(c); }
static int n_asyncError(ncclComm_t c, int* r) { return p_ncclCommGetAsyncError(c, r); }
static const char* n_errorString(int r) { return p_ncclGetErrorString(r); }
static const char* n_lastError(ncclComm_t c) { return p_ncclGetLastError ? p_ncclGetLastError(c) : NULL; }
static int n_groupStart(void) { return p_ncclGroupStart(); }
static int n_groupEnd(void) { return p_ncclGroupEnd(); }
static int n_allReduce(void* s, void* r, size_t c, int t, int op, ncclComm_t m, void* st) { return p_ncclAllReduce(s, r, c, t, op, m, st); }
static int n_broadcast(void* s, void* r, size_t c, int t, int root, ncclComm_t m, void* st) { return p_ncclBroadcast(s, r, c, t, root, m, st); }
static int n_reduce(void* s, void* r, size_t c, int t, int op, int root, ncclComm_t m, void* st) { return p_ncclReduce(s, r, c, t, op, root, m, st); }
static int n_allGather(void* s, void* r, size_t c, int t, ncclComm_t m, void* st) { return p_ncclAllGather(s, r, c, t, m, st); }
static int n_reduceScatter(void* s, void* r, size_t c, int t, int op, ncclComm_t m, void* st) { return p_ncclReduceScatter(s, r, c, t, op, m, st); }
static int n_send(void* s, size_t c, int t, int peer, ncclComm_t m, void* st) { return p_ncclSend(s, c, t, peer, m, st); }
static int n_recv(void* r, size_t c, int t, int peer, ncclComm_t m, void* st) { return p_ncclRecv(r, c, t, peer, m, st); }
*/
import "C"

import (
	"fmt"
	"os"
	"sync"
	"unsafe"

	"github.com/commlab/commlab/probes"
)

var (
	loadOnce sync.Once
	loadErr  error
)

func candidates() []string {
	if p := os.Getenv("COMMLAB_NCCL"); p != "" {
		return []string{p}
	}
	return []string{"libnccl.so.2", "libnccl.so"}
}

func load() error {
	loadOnce.Do(func() {
		buf := (*C.char)(C.malloc(512))
		defer C.free(unsafe.Pointer(buf))
		var reasons []string
		for _, p := range candidates() {
			cp := C.CString(p)
			rc := C.nl_load(cp, buf, 512)
			C.free(unsafe.Pointer(cp))
			if rc == 0 {
				loadErr = nil
				return
			}
			if rc == -1 {
				reasons = append(reasons, fmt.Sprintf("%s: missing symbol %s", p, C.GoString(buf)))
			} else {
				reasons = append(reasons, C.GoString(buf))
			}
		}
		loadErr = fmt.Errorf("nccl: %w: %v", probes.ErrUnavailable, reasons)
	})
	return loadErr
}

// Error is a failed NCCL call with NCCL's own words.
type Error struct {
	Call   string
	Code   int
	Text   string
	Detail string // ncclGetLastError, when the library has it
}

func (e *Error) Error() string {
	s := fmt.Sprintf("nccl: %s: error %d (%s)", e.Call, e.Code, e.Text)
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	return s
}

type comm = C.ncclComm_t

func check(call string, rc C.int, c comm) error {
	if rc == 0 {
		return nil
	}
	e := &Error{Call: call, Code: int(rc)}
	if s := C.n_errorString(rc); s != nil {
		e.Text = C.GoString(s)
	}
	if s := C.n_lastError(c); s != nil {
		e.Detail = C.GoString(s)
	}
	return e
}

// Version returns the loaded NCCL's version ("2.28.9") and the path of the
// library file.
func Version() (string, string, error) {
	if err := load(); err != nil {
		return "", "", err
	}
	var v C.int
	if err := check("ncclGetVersion", C.n_getVersion(&v), nil); err != nil {
		return "", "", err
	}
	return versionString(int(v)), C.GoString(C.nl_path()), nil
}

// versionString decodes NCCL_VERSION_CODE: major*10000+minor*100+patch
// since 2.9, major*1000+minor*100+patch before.
func versionString(v int) string {
	if v >= 10000 {
		return fmt.Sprintf("%d.%d.%d", v/10000, (v%10000)/100, v%100)
	}
	return fmt.Sprintf("%d.%d.%d", v/1000, (v%1000)/100, v%100)
}

func commInitAll(devs []int) ([]comm, error) {
	comms := make([]comm, len(devs))
	cd := make([]C.int, len(devs))
	for i, d := range devs {
		cd[i] = C.int(d)
	}
	err := check("ncclCommInitAll", C.n_commInitAll(&comms[0], C.int(len(devs)), &cd[0]), nil)
	return comms, err
}

func commDestroy(c comm) error { return check("ncclCommDestroy", C.n_commDestroy(c), nil) }
func commAbort(c comm) error   { return check("ncclCommAbort", C.n_commAbort(c), nil) }

func asyncError(c comm) error {
	var r C.int
	if err := check("ncclCommGetAsyncError", C.n_asyncError(c, &r), c); err != nil {
		return err
	}
	return check("async", r, c)
}

func groupStart() error { return check("ncclGroupStart", C.n_groupStart(), nil) }
func groupEnd() error   { return check("ncclGroupEnd", C.n_groupEnd(), nil) }

func allReduce(s, r unsafe.Pointer, n int64, t, op int, c comm, st unsafe.Pointer) error {
	return check("ncclAllReduce", C.n_allReduce(s, r, C.size_t(n), C.int(t), C.int(op), c, st), c)
}

func broadcast(s, r unsafe.Pointer, n int64, t, root int, c comm, st unsafe.Pointer) error {
	return check("ncclBroadcast", C.n_broadcast(s, r, C.size_t(n), C.int(t), C.int(root), c, st), c)
}

func reduce(s, r unsafe.Pointer, n int64, t, op, root int, c comm, st unsafe.Pointer) error {
	return check("ncclReduce", C.n_reduce(s, r, C.size_t(n), C.int(t), C.int(op), C.int(root), c, st), c)
}

func allGather(s, r unsafe.Pointer, n int64, t int, c comm, st unsafe.Pointer) error {
	return check("ncclAllGather", C.n_allGather(s, r, C.size_t(n), C.int(t), c, st), c)
}

func reduceScatter(s, r unsafe.Pointer, n int64, t, op int, c comm, st unsafe.Pointer) error {
	return check("ncclReduceScatter", C.n_reduceScatter(s, r, C.size_t(n), C.int(t), C.int(op), c, st), c)
}

func send(s unsafe.Pointer, n int64, t, peer int, c comm, st unsafe.Pointer) error {
	return check("ncclSend", C.n_send(s, C.size_t(n), C.int(t), C.int(peer), c, st), c)
}

func recv(r unsafe.Pointer, n int64, t, peer int, c comm, st unsafe.Pointer) error {
	return check("ncclRecv", C.n_recv(r, C.size_t(n), C.int(t), C.int(peer), c, st), c)
}
