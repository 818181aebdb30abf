package cuda

/*
#cgo CFLAGS: -I${SRCDIR}/../dynlib
#include "dynlib.h"
#include <stdlib.h>
#include <string.h>
#include <stdint.h>

// No CUDA headers on the build machine: the handful of types and
// signatures used are declared here as the runtime and driver ABIs define them.
typedef int cudaError_t;
typedef void* cudaStream_t;
typedef void* cudaEvent_t;
typedef void* cudaGraph_t;
typedef void* cudaGraphExec_t;
typedef int CUresult;
typedef void* CUmodule;
typedef void* CUfunction;

// The functions used, once each: X(name, return type, parameters).
#define CUDART_SYMBOLS(X) \
	X(cudaGetDeviceCount, cudaError_t, (int*)) \
	X(cudaSetDevice, cudaError_t, (int)) \
	X(cudaFree, cudaError_t, (void*)) \
	X(cudaMalloc, cudaError_t, (void**, size_t)) \
	X(cudaMallocHost, cudaError_t, (void**, size_t)) \
	X(cudaFreeHost, cudaError_t, (void*)) \
	X(cudaHostRegister, cudaError_t, (void*, size_t, unsigned int)) \
	X(cudaHostUnregister, cudaError_t, (void*)) \
	X(cudaMemset, cudaError_t, (void*, int, size_t)) \
	X(cudaMemcpy, cudaError_t, (void*, const void*, size_t, int)) \
	X(cudaMemcpyAsync, cudaError_t, (void*, const void*, size_t, int, cudaStream_t)) \
	X(cudaMemcpyPeerAsync, cudaError_t, (void*, int, const void*, int, size_t, cudaStream_t)) \
	X(cudaDeviceCanAccessPeer, cudaError_t, (int*, int, int)) \
	X(cudaDeviceEnablePeerAccess, cudaError_t, (int, unsigned int)) \
	X(cudaDeviceSynchronize, cudaError_t, (void)) \
	X(cudaDeviceGetAttribute, cudaError_t, (int*, int, int)) \
	X(cudaDriverGetVersion, cudaError_t, (int*)) \
	X(cudaRuntimeGetVersion, cudaError_t, (int*)) \
	X(cudaStreamCreateWithFlags, cudaError_t, (cudaStream_t*, unsigned int)) \
	X(cudaStreamDestroy, cudaError_t, (cudaStream_t)) \
	X(cudaStreamSynchronize, cudaError_t, (cudaStream_t)) \
	X(cudaStreamQuery, cudaError_t, (cudaStream_t)) \
	X(cudaStreamWaitEvent, cudaError_t, (cudaStream_t, cudaEvent_t, unsigned int)) \
	X(cudaEventCreate, cudaError_t, (cudaEvent_t*)) \
	X(cudaEventDestroy, cudaError_t, (cudaEvent_t)) \
	X(cudaEventRecord, cudaError_t, (cudaEvent_t, cudaStream_t)) \
	X(cudaEventSynchronize, cudaError_t, (cudaEvent_t)) \
	X(cudaEventQuery, cudaError_t, (cudaEvent_t)) \
	X(cudaEventElapsedTime, cudaError_t, (float*, cudaEvent_t, cudaEvent_t)) \
	X(cudaGetErrorString, const char*, (cudaError_t)) \
	X(cudaGetLastError, cudaError_t, (void)) \
	X(cudaStreamBeginCapture, cudaError_t, (cudaStream_t, int)) \
	X(cudaStreamEndCapture, cudaError_t, (cudaStream_t, cudaGraph_t*)) \
	X(cudaGraphInstantiateWithFlags, cudaError_t, (cudaGraphExec_t*, cudaGraph_t, unsigned long long)) \
	X(cudaGraphLaunch, cudaError_t, (cudaGraphExec_t, cudaStream_t)) \
	X(cudaGraphExecDestroy, cudaError_t, (cudaGraphExec_t)) \
	X(cudaGraphDestroy, cudaError_t, (cudaGraph_t))

#define CUDA_DRIVER_SYMBOLS(X) \
	X(cuModuleLoadData, CUresult, (CUmodule*, const void*)) \
	X(cuModuleUnload, CUresult, (CUmodule)) \
	X(cuModuleGetFunction, CUresult, (CUfunction*, CUmodule, const char*)) \
	X(cuLaunchKernel, CUresult, (CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, cudaStream_t, void**, void**)) \
	X(cuGetErrorString, CUresult, (CUresult, const char**)) \
	X(cuDeviceGetName, CUresult, (char*, int, int))

// A pointer p_name per function, and the tables probes/dynlib binds them from.
DYNLIB_TABLE(cl_runtimeTable, CUDART_SYMBOLS)
DYNLIB_TABLE(cl_driverTable, CUDA_DRIVER_SYMBOLS)

static int c_getDeviceCount(int* n) { return p_cudaGetDeviceCount(n); }
static int c_setDevice(int d) { return p_cudaSetDevice(d); }
static int c_free(void* p) { return p_cudaFree(p); }
static int c_malloc(void** p, size_t n) { return p_cudaMalloc(p, n); }
static int c_mallocHost(void** p, size_t n) { return p_cudaMallocHost(p, n); }
static int c_freeHost(void* p) { return p_cudaFreeHost(p); }
static int c_hostRegister(void* p, size_t n) { return p_cudaHostRegister(p, n, 0); }
static int c_hostUnregister(void* p) { return p_cudaHostUnregister(p); }
static int c_memset(void* p, int v, size_t n) { return p_cudaMemset(p, v, n); }
static int c_memcpy(void* d, const void* s, size_t n, int k) { return p_cudaMemcpy(d, s, n, k); }
static int c_memcpyAsync(void* d, const void* s, size_t n, int k, cudaStream_t st) { return p_cudaMemcpyAsync(d, s, n, k, st); }
static int c_memcpyPeerAsync(void* d, int dd, const void* s, int sd, size_t n, cudaStream_t st) { return p_cudaMemcpyPeerAsync(d, dd, s, sd, n, st); }
static int c_canAccessPeer(int* ok, int d, int p) { return p_cudaDeviceCanAccessPeer(ok, d, p); }
static int c_enablePeer(int p) { return p_cudaDeviceEnablePeerAccess(p, 0); }
static int c_deviceSynchronize(void) { return p_cudaDeviceSynchronize(); }
static int c_deviceGetAttribute(int* v, int a, int d) { return p_cudaDeviceGetAttribute(v, a, d); }
static int c_driverGetVersion(int* v) { return p_cudaDriverGetVersion(v); }
static int c_runtimeGetVersion(int* v) { return p_cudaRuntimeGetVersion(v); }
static int c_streamCreate(cudaStream_t* s) { return p_cudaStreamCreateWithFlags(s, 1); }
static int c_streamDestroy(cudaStream_t s) { return p_cudaStreamDestroy(s); }
static int c_streamSynchronize(cudaStream_t s) { return p_cudaStreamSynchronize(s); }
static int c_streamQuery(cudaStream_t s) { return p_cudaStreamQuery(s); }
static int c_streamWaitEvent(cudaStream_t s, cudaEvent_t e) { return p_cudaStreamWaitEvent(s, e, 0); }
static int c_eventCreate(cudaEvent_t* e) { return p_cudaEventCreate(e); }
static int c_eventDestroy(cudaEvent_t e) { return p_cudaEventDestroy(e); }
static int c_eventRecord(cudaEvent_t e, cudaStream_t s) { return p_cudaEventRecord(e, s); }
static int c_eventSynchronize(cudaEvent_t e) { return p_cudaEventSynchronize(e); }
static int c_eventQuery(cudaEvent_t e) { return p_cudaEventQuery(e); }
static int c_eventElapsed(float* ms, cudaEvent_t a, cudaEvent_t b) { return p_cudaEventElapsedTime(ms, a, b); }
static const char* c_errorString(int e) { return p_cudaGetErrorString(e); }
static int c_getLastError(void) { return p_cudaGetLastError(); }
static int c_beginCapture(cudaStream_t s) { return p_cudaStreamBeginCapture(s, 2); } // cudaStreamCaptureModeRelaxed
static int c_endCapture(cudaStream_t s, cudaGraph_t* g) { return p_cudaStreamEndCapture(s, g); }
static int c_graphInstantiate(cudaGraphExec_t* x, cudaGraph_t g) { return p_cudaGraphInstantiateWithFlags(x, g, 0); }
static int c_graphLaunch(cudaGraphExec_t x, cudaStream_t s) { return p_cudaGraphLaunch(x, s); }
static int c_graphExecDestroy(cudaGraphExec_t x) { return p_cudaGraphExecDestroy(x); }
static int c_graphDestroy(cudaGraph_t g) { return p_cudaGraphDestroy(g); }
static int c_moduleLoadData(CUmodule* m, const char* img) { return p_cuModuleLoadData(m, img); }
static int c_moduleUnload(CUmodule m) { return p_cuModuleUnload(m); }
static int c_moduleGetFunction(CUfunction* f, CUmodule m, const char* n) { return p_cuModuleGetFunction(f, m, n); }
static const char* c_cuErrorString(int e) { const char* s = NULL; p_cuGetErrorString(e, &s); return s; }
static int c_deviceGetName(char* b, int n, int d) { return p_cuDeviceGetName(b, n, d); }
// c_launch0 launches a kernel with no parameters on one thread.
static int c_launch0(CUfunction f, cudaStream_t s) { return p_cuLaunchKernel(f, 1,1,1, 1,1,1, 0, s, NULL, NULL); }
// c_launchStore launches commlab_store(p, v); commlab_spin(p) takes the
// same first parameter and ignores the second.
static int c_launchStore(CUfunction f, cudaStream_t s, void* p, unsigned v) {
	void* args[2] = { &p, &v };
	return p_cuLaunchKernel(f, 1,1,1, 1,1,1, 0, s, args, NULL);
}
// c_launchMany launches f n times back to back, so the loop itself adds no
// cgo crossing per launch.
static int c_launchMany(CUfunction f, cudaStream_t s, int n) {
	for (int i = 0; i < n; i++) { int r = p_cuLaunchKernel(f, 1,1,1, 1,1,1, 0, s, NULL, NULL); if (r) return r; }
	return 0;
}
// c_hostAlloc aligns pageable buffers to 64 bytes, as PyTorch's CPU
// allocator does (c10 gAlignment), so both measure the same kind of buffer;
// glibc's malloc aligns large blocks to 16 bytes only.
static void* c_hostAlloc(size_t n) {
	void* p = NULL;
	if (posix_memalign(&p, 64, n ? n : 1) != 0) return NULL;
	memset(p, 1, n);
	return p;
}
static void c_hostFree(void* p) { free(p); }
*/
import "C"

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/commlab/commlab/probes"
	"github.com/commlab/commlab/probes/dynlib"
)

// cudaMemcpyKind values of the runtime API.
const (
	memcpyHostToDevice   = 1
	memcpyDeviceToHost   = 2
	memcpyDeviceToDevice = 3
)

// cudaErrorNotReady is what queries return while work is pending.
const cudaErrorNotReady = 600

var (
	loadOnce sync.Once
	loadErr  error
	loadPath string
)

// load opens the CUDA runtime and driver once per process and binds every
// function the package calls. A runtime candidate that lacks one of them
// is passed over for the next; COMMLAB_CUDART forces one path.
func load() error {
	loadOnce.Do(func() {
		rt, err := dynlib.Open(dynlib.Spec{What: "CUDA runtime", Env: "COMMLAB_CUDART",
			Names: []string{"libcudart.so.13", "libcudart.so.12", "libcudart.so"},
			Table: C.cl_runtimeTable()})
		if err == nil {
			_, err = dynlib.Open(dynlib.Spec{What: "CUDA driver", Names: []string{"libcuda.so.1"}, Table: C.cl_driverTable()})
		}
		if err != nil {
			loadErr = fmt.Errorf("cuda: %w", err)
			return
		}
		loadPath = rt.Name()
	})
	return loadErr
}

// Error is a failed CUDA call: which call, and the runtime's code and text.
type Error struct {
	Call string
	Code int
	Text string
}

func (e *Error) Error() string {
	return fmt.Sprintf("cuda: %s: error %d (%s)", e.Call, e.Code, e.Text)
}

// check turns a runtime return code into an *Error.
func check(call string, rc C.int) error {
	if rc == 0 {
		return nil
	}
	return newError(call, rc, C.c_errorString(rc))
}

// checkDrv turns a driver API return code into an *Error.
func checkDrv(call string, rc C.int) error {
	if rc == 0 {
		return nil
	}
	return newError(call, rc, C.c_cuErrorString(rc))
}

func newError(call string, rc C.int, text *C.char) *Error {
	e := &Error{Call: call, Code: int(rc)}
	if text != nil {
		e.Text = C.GoString(text)
	}
	return e
}

// Info describes the CUDA installation and devices.
type Info struct {
	Library string `json:"library"`
	Driver  string `json:"driver"`  // CUDA version the driver supports, "13.0"
	Runtime string `json:"runtime"` // runtime library version, "13.0"
	// DriverRelease is the kernel module's version ("580.159.04") from
	// /proc/driver/nvidia/version, empty where that file is absent.
	DriverRelease string   `json:"driver_release,omitempty"`
	Devices       []string `json:"devices"`
	SMCounts      []int    `json:"sm_counts"`
	// L2Bytes is each device's L2 cache size (cudaDevAttrL2CacheSize):
	// copies whose buffers fit in it need not reach HBM.
	L2Bytes []int64 `json:"l2_bytes,omitempty"`
}

// Device attributes read with cudaDeviceGetAttribute (cudaDeviceAttr in
// the runtime API's driver_types.h).
const (
	attrMultiProcessorCount = 16
	attrL2CacheSize         = 38
)

func cudaVersion(v C.int) string { return fmt.Sprintf("%d.%d", int(v)/1000, (int(v)%1000)/10) }

// Open loads the runtime and returns the devices it sees. No driver, no
// library or no device gives an error wrapping probes.ErrUnavailable.
func Open() (*Info, error) {
	if err := load(); err != nil {
		return nil, err
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var n C.int
	if rc := C.c_getDeviceCount(&n); rc != 0 {
		return nil, fmt.Errorf("cuda: %w: %w", probes.ErrUnavailable, check("cudaGetDeviceCount", rc))
	}
	if n == 0 {
		return nil, fmt.Errorf("cuda: %w: no CUDA device", probes.ErrUnavailable)
	}
	info := &Info{Library: loadPath}
	var dv, rv C.int
	if err := check("cudaDriverGetVersion", C.c_driverGetVersion(&dv)); err != nil {
		return nil, err
	}
	if err := check("cudaRuntimeGetVersion", C.c_runtimeGetVersion(&rv)); err != nil {
		return nil, err
	}
	info.Driver, info.Runtime = cudaVersion(dv), cudaVersion(rv)
	info.DriverRelease = driverRelease()
	for d := 0; d < int(n); d++ {
		if err := check("cudaSetDevice", C.c_setDevice(C.int(d))); err != nil {
			return nil, err
		}
		// cudaFree(0) creates the primary context the driver API calls use.
		if err := check("cudaFree", C.c_free(nil)); err != nil {
			return nil, err
		}
		buf := make([]byte, 256)
		if err := checkDrv("cuDeviceGetName", C.c_deviceGetName((*C.char)(unsafe.Pointer(&buf[0])), 256, C.int(d))); err != nil {
			return nil, err
		}
		info.Devices = append(info.Devices, C.GoString((*C.char)(unsafe.Pointer(&buf[0]))))
		var sms, l2 C.int
		if err := check("cudaDeviceGetAttribute", C.c_deviceGetAttribute(&sms, attrMultiProcessorCount, C.int(d))); err != nil {
			return nil, err
		}
		if err := check("cudaDeviceGetAttribute", C.c_deviceGetAttribute(&l2, attrL2CacheSize, C.int(d))); err != nil {
			return nil, err
		}
		info.SMCounts = append(info.SMCounts, int(sms))
		info.L2Bytes = append(info.L2Bytes, int64(l2))
	}
	return info, nil
}

// IsUnavailable reports whether err means no CUDA here.
func IsUnavailable(err error) bool { return errors.Is(err, probes.ErrUnavailable) }

// The Go wrappers below are the only callers of the C table; the
// measurement code above them stays plain Go. Callers hold the OS thread
// (runtime.LockOSThread) because the current device is per thread.

type (
	stream    = C.cudaStream_t
	event     = C.cudaEvent_t
	graphExec = C.cudaGraphExec_t
	function  = C.CUfunction
)

func setDevice(d int) error { return check("cudaSetDevice", C.c_setDevice(C.int(d))) }

// onDevice makes d the current device, then runs f.
func onDevice(d int, f func() error) error {
	if err := setDevice(d); err != nil {
		return err
	}
	return f()
}

// devicesReady loads the runtime and counts the devices; failing to count
// them means no usable CUDA here.
func devicesReady() (int, error) {
	if err := load(); err != nil {
		return 0, err
	}
	n, err := deviceCount()
	if err != nil {
		return 0, fmt.Errorf("cuda: %w: %w", probes.ErrUnavailable, err)
	}
	return n, nil
}

// readyDevices opens CUDA and checks that each of devs is a device here;
// nil devs means every device. It returns the devices.
func readyDevices(devs []int) ([]int, error) {
	n, err := devicesReady()
	if err != nil {
		return nil, err
	}
	if devs == nil {
		for d := 0; d < n; d++ {
			devs = append(devs, d)
		}
	}
	for _, d := range devs {
		if err := checkDevice(d, n); err != nil {
			return nil, err
		}
	}
	return devs, nil
}

// checkDevice says whether d is one of n devices.
func checkDevice(d, n int) error {
	if d < 0 || d >= n {
		return fmt.Errorf("cuda: device %d out of range (%d devices)", d, n)
	}
	return nil
}

func deviceCount() (int, error) {
	var n C.int
	err := check("cudaGetDeviceCount", C.c_getDeviceCount(&n))
	return int(n), err
}

func devMalloc(n int64) (unsafe.Pointer, error) {
	var p unsafe.Pointer
	err := check("cudaMalloc", C.c_malloc(&p, C.size_t(n)))
	return p, err
}

func devFree(p unsafe.Pointer) error { return check("cudaFree", C.c_free(p)) }

func pinnedMalloc(n int64) (unsafe.Pointer, error) {
	var p unsafe.Pointer
	err := check("cudaMallocHost", C.c_mallocHost(&p, C.size_t(n)))
	return p, err
}

func pinnedFree(p unsafe.Pointer) error { return check("cudaFreeHost", C.c_freeHost(p)) }

// hostRegister pins n bytes of host memory at p that the caller allocated
// (cudaHostRegister, default flags); hostUnregister unpins them.
func hostRegister(p unsafe.Pointer, n int64) error {
	return check("cudaHostRegister", C.c_hostRegister(p, C.size_t(n)))
}

func hostUnregister(p unsafe.Pointer) error {
	return check("cudaHostUnregister", C.c_hostUnregister(p))
}

// pageableMalloc returns ordinary (pageable) host memory, 64-byte aligned,
// with every page touched.
func pageableMalloc(n int64) (unsafe.Pointer, error) {
	p := C.c_hostAlloc(C.size_t(n))
	if p == nil {
		return nil, fmt.Errorf("cuda: malloc of %d bytes failed", n)
	}
	return p, nil
}

func pageableFree(p unsafe.Pointer) { C.c_hostFree(p) }

func hostMemset(p unsafe.Pointer, v byte, n int64) { C.memset(p, C.int(v), C.size_t(n)) }

func devMemset(p unsafe.Pointer, v byte, n int64) error {
	return check("cudaMemset", C.c_memset(p, C.int(v), C.size_t(n)))
}

func memcpySync(dst, src unsafe.Pointer, n int64, kind int) error {
	return check("cudaMemcpy", C.c_memcpy(dst, src, C.size_t(n), C.int(kind)))
}

func memcpyAsync(dst, src unsafe.Pointer, n int64, kind int, s stream) error {
	return check("cudaMemcpyAsync", C.c_memcpyAsync(dst, src, C.size_t(n), C.int(kind), s))
}

func memcpyPeerAsync(dst unsafe.Pointer, dstDev int, src unsafe.Pointer, srcDev int, n int64, s stream) error {
	return check("cudaMemcpyPeerAsync", C.c_memcpyPeerAsync(dst, C.int(dstDev), src, C.int(srcDev), C.size_t(n), s))
}

func canAccessPeer(d, p int) (bool, error) {
	var ok C.int
	err := check("cudaDeviceCanAccessPeer", C.c_canAccessPeer(&ok, C.int(d), C.int(p)))
	return ok != 0, err
}

// enablePeer lets the current device access peer p; already enabled is fine.
func enablePeer(p int) error {
	rc := C.c_enablePeer(C.int(p))
	if rc == 704 { // cudaErrorPeerAccessAlreadyEnabled
		C.c_getLastError() // clear the sticky-free error the runtime records
		return nil
	}
	return check("cudaDeviceEnablePeerAccess", rc)
}

func deviceSynchronize() error { return check("cudaDeviceSynchronize", C.c_deviceSynchronize()) }

func newStream() (stream, error) {
	var s stream
	err := check("cudaStreamCreateWithFlags", C.c_streamCreate(&s))
	return s, err
}

func destroyStream(s stream) error { return check("cudaStreamDestroy", C.c_streamDestroy(s)) }

func streamSynchronize(s stream) error {
	return check("cudaStreamSynchronize", C.c_streamSynchronize(s))
}

func streamWaitEvent(s stream, e event) error {
	return check("cudaStreamWaitEvent", C.c_streamWaitEvent(s, e))
}

func newEvent() (event, error) {
	var e event
	err := check("cudaEventCreate", C.c_eventCreate(&e))
	return e, err
}

func destroyEvent(e event) error { return check("cudaEventDestroy", C.c_eventDestroy(e)) }

func eventRecord(e event, s stream) error { return check("cudaEventRecord", C.c_eventRecord(e, s)) }

func eventSynchronize(e event) error { return check("cudaEventSynchronize", C.c_eventSynchronize(e)) }

// elapsedUS is the time between two recorded events in microseconds.
func elapsedUS(a, b event) (float64, error) {
	var ms C.float
	err := check("cudaEventElapsedTime", C.c_eventElapsed(&ms, a, b))
	return float64(ms) * 1e3, err
}

func lastError() error { return check("cudaGetLastError", C.c_getLastError()) }

func beginCapture(s stream) error { return check("cudaStreamBeginCapture", C.c_beginCapture(s)) }

// endCapture ends a capture and instantiates it; the graph itself is freed.
func endCapture(s stream) (graphExec, error) {
	var g C.cudaGraph_t
	if err := check("cudaStreamEndCapture", C.c_endCapture(s, &g)); err != nil {
		return nil, err
	}
	defer C.c_graphDestroy(g)
	var x graphExec
	err := check("cudaGraphInstantiateWithFlags", C.c_graphInstantiate(&x, g))
	return x, err
}

func graphLaunch(x graphExec, s stream) error { return check("cudaGraphLaunch", C.c_graphLaunch(x, s)) }

func graphExecDestroy(x graphExec) error {
	return check("cudaGraphExecDestroy", C.c_graphExecDestroy(x))
}

// module is a PTX module loaded through the driver's JIT.
type module struct {
	m     C.CUmodule
	empty function
	store function
	spin  function
}

func loadModule(ptx string) (*module, error) {
	cs := C.CString(ptx)
	defer C.free(unsafe.Pointer(cs))
	var m module
	if err := checkDrv("cuModuleLoadData", C.c_moduleLoadData(&m.m, cs)); err != nil {
		return nil, err
	}
	for name, slot := range map[string]*function{"commlab_empty": &m.empty, "commlab_store": &m.store, "commlab_spin": &m.spin} {
		cn := C.CString(name)
		err := checkDrv("cuModuleGetFunction "+name, C.c_moduleGetFunction(slot, m.m, cn))
		C.free(unsafe.Pointer(cn))
		if err != nil {
			C.c_moduleUnload(m.m)
			return nil, err
		}
	}
	return &m, nil
}

func (m *module) unload() error { return checkDrv("cuModuleUnload", C.c_moduleUnload(m.m)) }

func launchEmpty(f function, s stream) error { return checkDrv("cuLaunchKernel", C.c_launch0(f, s)) }

func launchMany(f function, s stream, n int) error {
	return checkDrv("cuLaunchKernel", C.c_launchMany(f, s, C.int(n)))
}

func launchStore(f function, s stream, p unsafe.Pointer, v uint32) error {
	return checkDrv("cuLaunchKernel", C.c_launchStore(f, s, p, C.uint(v)))
}

var driverVersionRE = regexp.MustCompile(`Kernel Module(?: for x86_64)?\s+([0-9]+\.[0-9]+(?:\.[0-9]+)?)`)

// driverRelease reads the driver's version from procfs.
func driverRelease() string {
	b, err := os.ReadFile("/proc/driver/nvidia/version")
	if err != nil {
		return ""
	}
	if m := driverVersionRE.FindSubmatch(b); m != nil {
		return string(m[1])
	}
	return ""
}

// Describe fills a run's machine fields (GPU model and count, driver and
// CUDA versions, host) from Info, and records the devices' L2 cache size
// in Settings (probes.SettingL2Bytes; Run.L2Bytes reads it back).
func (i *Info) Describe(r *probes.Run) {
	if l2 := l2Setting(i.L2Bytes); l2 != "" {
		if r.Settings == nil {
			r.Settings = map[string]string{}
		}
		r.Settings[probes.SettingL2Bytes] = l2
	}
	if len(i.Devices) > 0 {
		r.GPUModel = i.Devices[0]
	}
	r.GPUCount = len(i.Devices)
	r.Driver = i.DriverRelease
	if r.Driver == "" {
		r.Driver = "CUDA " + i.Driver
	}
	r.CUDA = i.Runtime
	if h, err := os.Hostname(); err == nil && r.Host == "" {
		r.Host = h
	}
}

// l2Setting is one size when every device has the same L2, else the sizes
// in device order, comma-separated; empty when none is known.
func l2Setting(sizes []int64) string {
	if len(sizes) == 0 {
		return ""
	}
	parts := make([]string, len(sizes))
	same := true
	for i, n := range sizes {
		parts[i] = strconv.FormatInt(n, 10)
		same = same && n == sizes[0]
	}
	switch {
	case same && sizes[0] <= 0:
		return ""
	case same:
		return parts[0]
	}
	return strings.Join(parts, ",")
}

func eventQuery(e event) C.int { return C.c_eventQuery(e) }

// HoldStream enqueues a kernel that spins on s until release is called:
// work queued behind it cannot start, as behind a kernel that never ends
// (a collective whose peer never arrives). The hang lab uses it to show a
// timeout and abort on a single GPU. The kernel polls a word of pinned
// host memory, which release sets. (A host callback would hold CUDA's
// callback thread, which NCCL needs for itself.)
func HoldStream(s Stream) (release func(), err error) {
	if err := setDevice(s.dev); err != nil {
		return nil, err
	}
	mod, err := loadModule(ptx)
	if err != nil {
		return nil, err
	}
	flag, err := pinnedMalloc(4)
	if err != nil {
		mod.unload()
		return nil, err
	}
	atomic.StoreUint32((*uint32)(flag), 0)
	if err := checkDrv("cuLaunchKernel", C.c_launchStore(mod.spin, s.s, flag, 0)); err != nil {
		pinnedFree(flag)
		mod.unload()
		return nil, err
	}
	var once sync.Once
	// The flag and module stay: the kernel may still be reading the flag
	// when release returns, and freeing pinned memory would wait for it.
	return func() { once.Do(func() { atomic.StoreUint32((*uint32)(flag), 1) }) }, nil
}
