package nccl

/*
#cgo CFLAGS: -I${SRCDIR}/../dynlib
#include "dynlib.h"
#include <stdlib.h>
#include <string.h>
#include <stddef.h>
#include <limits.h>

// No NCCL headers on the build machine: the few types and signatures used,
// as nccl.h declares them.
typedef void* ncclComm_t;
typedef int ncclResult_t;
typedef void* cudaStream_t;
typedef struct { char internal[128]; } ncclUniqueId;

// ncclConfig_t's leading fields, in nccl.h's order (2.27 layout; NCCL only
// appends). size tells NCCL how much of it we pass: it copies that much
// and takes every later field from NCCL_CONFIG_INITIALIZER, i.e. unset.
typedef struct {
	size_t size;
	unsigned int magic;
	unsigned int version;
	int blocking;
	int cgaClusterSize;
	int minCTAs;
	int maxCTAs;
	const char *netName;
	int splitShare;
	int trafficClass;
	const char *commName;
	int collnetEnable;
	int CTAPolicy;
	int shrinkShare;
	int nvlsCTAs;
} nl_config;

#define NL_API_MAGIC 0xcafebeef
#define NL_UNDEF_INT INT_MIN

// The functions used, once each: X(name, return type, parameters).
// ncclGetVersion comes first: the library's file is the one defining it.
#define NCCL_SYMBOLS(X) \
	X(ncclGetVersion, ncclResult_t, (int*)) \
	X(ncclCommInitAll, ncclResult_t, (ncclComm_t*, int, const int*)) \
	X(ncclCommDestroy, ncclResult_t, (ncclComm_t)) \
	X(ncclCommAbort, ncclResult_t, (ncclComm_t)) \
	X(ncclCommGetAsyncError, ncclResult_t, (ncclComm_t, ncclResult_t*)) \
	X(ncclGetErrorString, const char*, (ncclResult_t)) \
	X(ncclGroupStart, ncclResult_t, (void)) \
	X(ncclGroupEnd, ncclResult_t, (void)) \
	X(ncclAllReduce, ncclResult_t, (const void*, void*, size_t, int, int, ncclComm_t, cudaStream_t)) \
	X(ncclBroadcast, ncclResult_t, (const void*, void*, size_t, int, int, ncclComm_t, cudaStream_t)) \
	X(ncclReduce, ncclResult_t, (const void*, void*, size_t, int, int, int, ncclComm_t, cudaStream_t)) \
	X(ncclAllGather, ncclResult_t, (const void*, void*, size_t, int, ncclComm_t, cudaStream_t)) \
	X(ncclReduceScatter, ncclResult_t, (const void*, void*, size_t, int, int, ncclComm_t, cudaStream_t)) \
	X(ncclSend, ncclResult_t, (const void*, size_t, int, int, ncclComm_t, cudaStream_t)) \
	X(ncclRecv, ncclResult_t, (void*, size_t, int, int, ncclComm_t, cudaStream_t))

// Newer ones NCCL may lack: ncclGetLastError is 2.13+; without the 2.14+
// pair communicators are blocking (ncclCommInitAll).
#define NCCL_OPTIONAL_SYMBOLS(X) \
	X(ncclGetLastError, const char*, (ncclComm_t)) \
	X(ncclGetUniqueId, ncclResult_t, (ncclUniqueId*)) \
	X(ncclCommInitRankConfig, ncclResult_t, (ncclComm_t*, int, ncclUniqueId, int, nl_config*))

// A pointer p_name per function, and the tables probes/dynlib binds them from.
DYNLIB_TABLE(nl_requiredTable, NCCL_SYMBOLS)
DYNLIB_TABLE(nl_optionalTable, NCCL_OPTIONAL_SYMBOLS)

static int n_getVersion(int* v) { return p_ncclGetVersion(v); }
static int n_commInitAll(ncclComm_t* c, int n, const int* d) { return p_ncclCommInitAll(c, n, d); }
static int n_hasConfig(void) { return p_ncclGetUniqueId != NULL && p_ncclCommInitRankConfig != NULL; }
static int n_getUniqueId(ncclUniqueId* id) { return p_ncclGetUniqueId(id); }
static int n_commInitRankConfig(ncclComm_t* c, int n, ncclUniqueId* id, int rank, nl_config* cfg) { return p_ncclCommInitRankConfig(c, n, *id, rank, cfg); }

// nl_configInit does what NCCL_CONFIG_INITIALIZER does for our prefix,
// with the library's own version code, then sets blocking.
static void nl_configInit(nl_config* c, unsigned int version, int blocking) {
	c->size = sizeof(nl_config);
	c->magic = NL_API_MAGIC;
	c->version = version;
	c->blocking = blocking;
	c->cgaClusterSize = NL_UNDEF_INT;
	c->minCTAs = NL_UNDEF_INT;
	c->maxCTAs = NL_UNDEF_INT;
	c->netName = NULL;
	c->splitShare = NL_UNDEF_INT;
	c->trafficClass = NL_UNDEF_INT;
	c->commName = NULL;
	c->collnetEnable = NL_UNDEF_INT;
	c->CTAPolicy = NL_UNDEF_INT;
	c->shrinkShare = NL_UNDEF_INT;
	c->nvlsCTAs = NL_UNDEF_INT;
}

// nl_configOffset reports field i's offset (i = -1: the struct's size), for
// the layout test.
static long nl_configOffset(int i) {
	switch (i) {
	case 0: return offsetof(nl_config, size);
	case 1: return offsetof(nl_config, magic);
	case 2: return offsetof(nl_config, version);
	case 3: return offsetof(nl_config, blocking);
	case 4: return offsetof(nl_config, cgaClusterSize);
	case 5: return offsetof(nl_config, minCTAs);
	case 6: return offsetof(nl_config, maxCTAs);
	case 7: return offsetof(nl_config, netName);
	case 8: return offsetof(nl_config, splitShare);
	case 9: return offsetof(nl_config, trafficClass);
	case 10: return offsetof(nl_config, commName);
	case 11: return offsetof(nl_config, collnetEnable);
	case 12: return offsetof(nl_config, CTAPolicy);
	case 13: return offsetof(nl_config, shrinkShare);
	case 14: return offsetof(nl_config, nvlsCTAs);
	}
	return sizeof(nl_config);
}

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
	"errors"
	"fmt"
	"sync"
	"time"
	"unsafe"

	"github.com/commlab/commlab/probes/cuda"
	"github.com/commlab/commlab/probes/dynlib"
)

var (
	loadOnce sync.Once
	loadErr  error
	loadFile string // the file the library was loaded from
)

// load opens NCCL once per process and binds its functions; COMMLAB_NCCL
// forces one path.
func load() error {
	loadOnce.Do(func() {
		lib, err := dynlib.Open(dynlib.Spec{What: "NCCL", Env: "COMMLAB_NCCL",
			Names: []string{"libnccl.so.2", "libnccl.so"}, Table: C.nl_requiredTable()})
		if err != nil {
			loadErr = fmt.Errorf("nccl: %w", err)
			return
		}
		lib.BindOptional(C.nl_optionalTable())
		loadFile = lib.File()
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
	return versionString(int(v)), loadFile, nil
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

// resultInProgress is ncclInProgress: a non-blocking communicator's call
// was accepted and goes on in NCCL's own threads.
const resultInProgress = 7

// inProgress reports whether err is NCCL's ncclInProgress.
func inProgress(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Code == resultInProgress
}

// configFieldNames are ncclConfig_t's leading fields in nccl.h's order;
// nl_config declares them, and the layout test holds it to this list.
var configFieldNames = []string{"size", "magic", "version", "blocking", "cgaClusterSize", "minCTAs", "maxCTAs",
	"netName", "splitShare", "trafficClass", "commName", "collnetEnable", "CTAPolicy", "shrinkShare", "nvlsCTAs"}

// configOffsets returns each field's offset in nl_config and its size.
func configOffsets() ([]int64, int64) {
	offs := make([]int64, len(configFieldNames))
	for i := range offs {
		offs[i] = int64(C.nl_configOffset(C.int(i)))
	}
	return offs, int64(C.nl_configOffset(-1))
}

// configDump is what nl_configInit wrote, for tests.
type configDump struct {
	Size, Magic, Version uint64
	Blocking             int
	Unset                []int // the other int fields, in order
	NilNames             bool  // netName and commName are NULL
}

func initConfig(version int, blocking bool) configDump {
	var c C.nl_config
	b := 0
	if blocking {
		b = 1
	}
	C.nl_configInit(&c, C.uint(version), C.int(b))
	return configDump{Size: uint64(c.size), Magic: uint64(c.magic), Version: uint64(c.version), Blocking: int(c.blocking),
		Unset:    []int{int(c.cgaClusterSize), int(c.minCTAs), int(c.maxCTAs), int(c.splitShare), int(c.trafficClass), int(c.collnetEnable), int(c.CTAPolicy), int(c.shrinkShare), int(c.nvlsCTAs)},
		NilNames: c.netName == nil && c.commName == nil}
}

// nonBlockingSince is the first NCCL whose ncclConfig_t has blocking.
const nonBlockingSince = 21400

// commInitNonBlocking creates one non-blocking communicator per device
// (ncclCommInitRankConfig with blocking = 0 inside one group, which is what
// ncclCommInitAll does with a blocking config) and waits for them until
// deadline. Every later call on them returns instead of blocking, so a
// hang can be timed out and aborted. ok is false where the library is too
// old for that; the caller then falls back to ncclCommInitAll.
func commInitNonBlocking(devs []int, deadline time.Time, clk clock) (comms []comm, ok bool, err error) {
	var v C.int
	if err := check("ncclGetVersion", C.n_getVersion(&v), nil); err != nil {
		return nil, false, err
	}
	if C.n_hasConfig() == 0 || int(v) < nonBlockingSince {
		return nil, false, nil
	}
	var id C.ncclUniqueId
	if err := check("ncclGetUniqueId", C.n_getUniqueId(&id), nil); err != nil {
		return nil, true, err
	}
	cfg := (*C.nl_config)(C.malloc(C.size_t(unsafe.Sizeof(C.nl_config{}))))
	defer C.free(unsafe.Pointer(cfg))
	C.nl_configInit(cfg, C.uint(v), 0)
	comms = make([]comm, len(devs))
	if err := groupStart(); err != nil {
		return nil, true, err
	}
	var first error
	for i, d := range devs {
		if err := cuda.SetDevice(d); err != nil {
			first = err
			break
		}
		// Inside a group each call only queues its rank; the group's end
		// starts them together.
		err := check("ncclCommInitRankConfig", C.n_commInitRankConfig(&comms[i], C.int(len(devs)), &id, C.int(i), cfg), nil)
		if err != nil && !inProgress(err) && first == nil {
			first = err
		}
	}
	if err := groupEnd(); err != nil && !inProgress(err) && first == nil {
		first = err
	}
	if first != nil {
		abortAll(comms)
		return nil, true, first
	}
	if err := settle(comms, deadline, clk); err != nil {
		if errors.Is(err, errDeadline) {
			return comms, true, err // the caller aborts and reports them
		}
		abortAll(comms)
		return nil, true, err
	}
	return comms, true, nil
}

// settle waits until no communicator is ncclInProgress any more, an
// asynchronous error shows, or deadline passes (errSettleTimeout).
func settle(comms []comm, deadline time.Time, clk clock) error {
	return pollUntil(clk, deadline, func() (bool, error) {
		for _, c := range comms {
			if c == nil {
				continue
			}
			pending, err := asyncState(c)
			if err != nil {
				return false, err
			}
			if pending {
				return false, nil
			}
		}
		return true, nil
	})
}

func abortAll(comms []comm) {
	for _, c := range comms {
		if c != nil {
			commAbort(c)
		}
	}
}

func commDestroy(c comm) error { return check("ncclCommDestroy", C.n_commDestroy(c), nil) }

// commAbort aborts c; on a non-blocking communicator NCCL may finish the
// teardown in its own thread (ncclInProgress), which is no error.
func commAbort(c comm) error {
	if err := check("ncclCommAbort", C.n_commAbort(c), nil); err != nil && !inProgress(err) {
		return err
	}
	return nil
}

// asyncState reports whether c is still ncclInProgress, or its
// asynchronous error.
func asyncState(c comm) (pending bool, err error) {
	var r C.int
	if err := check("ncclCommGetAsyncError", C.n_asyncError(c, &r), c); err != nil {
		return false, err
	}
	if r == resultInProgress {
		return true, nil
	}
	return false, check("async", r, c)
}

func asyncError(c comm) error {
	_, err := asyncState(c)
	return err
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
