package nccl

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/commlab/commlab/parse/ncclxml"
	"github.com/commlab/commlab/probes"

	"github.com/commlab/commlab/probes/hwtest"
)

// TestMain lets the test binary stand in for the commlab child: with
// COMMLAB_TEST_CHILD set it acts as a worker (or hangs, for the watchdog).
func TestMain(m *testing.M) {
	switch os.Getenv("COMMLAB_TEST_CHILD") {
	case "worker":
		if err := ServeWorker(os.Stderr); err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			os.Exit(1)
		}
		os.Exit(0)
	case "debugfile":
		// Stands in for NCCL writing its log where NCCL_DEBUG_FILE's pattern
		// says. Where NCCL is present it writes the file itself when the
		// worker starts it, truncating whatever was there (fopen "w" in
		// src/debug.cc): then its own lines are the log.
		if _, _, err := Version(); err != nil {
			os.WriteFile(DebugFileName(os.Getenv("NCCL_DEBUG_FILE"), os.Getpid()), []byte("host:1:1 [0] NCCL INFO hello\n"), 0o600)
		}
		if err := ServeWorker(os.Stderr); err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
		}
		os.Exit(0)
	case "topo":
		// Stands in for NCCL: writes the dumps where NCCL would, the topology
		// dump echoing the NCCL_TOPO_FILE it was given.
		given, _ := os.ReadFile(os.Getenv("NCCL_TOPO_FILE"))
		os.WriteFile(os.Getenv("NCCL_TOPO_DUMP_FILE"), append([]byte("dumped from "), given...), 0o600)
		os.WriteFile(os.Getenv("NCCL_GRAPH_DUMP_FILE"), []byte("<graphs rank="+os.Getenv("NCCL_GRAPH_DUMP_FILE_RANK")+"/>"), 0o600)
		if err := ServeWorker(os.Stderr); err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
		}
		os.Exit(0)
	case "topo-dump":
		// Stands in for NCCL on a one-GPU machine with a socket NIC: the
		// topology dump, or the given file when there is one.
		topo := `<system version="1">
  <cpu numaid="-1" host_hash="0x1">
    <pci busid="0000:00:06.0" class="0x030200"><gpu dev="0" sm="90" rank="0" gdr="1"/></pci>
    <nic><net name="eth0" dev="0" speed="10000"/></nic>
  </cpu>
</system>
`
		if given, err := os.ReadFile(os.Getenv("NCCL_TOPO_FILE")); err == nil {
			topo = string(given)
		}
		os.WriteFile(os.Getenv("NCCL_TOPO_DUMP_FILE"), []byte(topo), 0o600)
		if err := ServeWorker(os.Stderr); err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
		}
		os.Exit(0)
	case "hang":
		os.Stdout.WriteString("child: pretending NCCL hung\n")
		time.Sleep(time.Hour)
	}
	os.Exit(m.Run())
}

func TestCountsMatchNCCLTests(t *testing.T) {
	// Sizes and counts as nccl-tests prints them (src/*.cu getCollByteCount).
	tests := []struct {
		coll                            string
		size, elem                      int64
		n                               int
		param, send, recv, reportedSize int64
	}{
		{AllReduce, 1 << 20, 4, 8, 262144, 262144, 262144, 1 << 20},
		{AllGather, 1 << 20, 4, 8, 32768, 32768, 262144, 1 << 20},
		{ReduceScatter, 1 << 20, 4, 8, 32768, 262144, 32768, 1 << 20},
		{AllToAll, 1 << 20, 4, 8, 32768, 262144, 262144, 1 << 20},
		{AllGather, 100, 4, 8, 3, 3, 24, 96}, // rounded down to a multiple of n
		{AllGather, 8, 4, 4, 0, 0, 0, 0},     // too small: skipped
		{Broadcast, 8, 4, 2, 2, 2, 2, 8},
		{AllReduce, 9, 2, 1, 4, 4, 4, 8},
	}
	for _, tc := range tests {
		p, s, r, rep := Counts(tc.coll, tc.size, tc.elem, tc.n)
		if p != tc.param || s != tc.send || r != tc.recv || rep != tc.reportedSize {
			t.Errorf("Counts(%s, %d, %d, %d) = %d %d %d %d, want %d %d %d %d", tc.coll, tc.size, tc.elem, tc.n,
				p, s, r, rep, tc.param, tc.send, tc.recv, tc.reportedSize)
		}
	}
}

func TestBusFactor(t *testing.T) {
	tests := []struct {
		coll string
		n    int
		want float64
	}{
		{AllReduce, 8, 1.75}, {AllReduce, 1, 0}, {AllReduce, 2, 1},
		{AllGather, 8, 0.875}, {ReduceScatter, 4, 0.75}, {AllToAll, 2, 0.5},
		{Broadcast, 8, 1}, {Reduce, 8, 1}, {SendRecv, 8, 1},
	}
	for _, tc := range tests {
		if got := BusFactor(tc.coll, tc.n); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("BusFactor(%s, %d) = %v, want %v", tc.coll, tc.n, got, tc.want)
		}
	}
}

func TestEncodeDecodeEveryType(t *testing.T) {
	for _, dt := range DTypes {
		for _, v := range []float64{1, 2, 3, 4, 8} {
			if dt.Code == 11 && v == 3 { // e5m2 holds 3 exactly: 1.5 * 2
				v = 3
			}
			b := make([]byte, dt.Size)
			encode(dt, b, v)
			if got := decode(dt, b); got != v {
				t.Errorf("%s: encode/decode %v = %v", dt.Name, v, got)
			}
		}
	}
}

func TestHalfAndFP8Bits(t *testing.T) {
	// Bit patterns from IEEE 754 binary16 and the OCP FP8 specification.
	half := map[float32]uint16{1: 0x3c00, 2: 0x4000, 0.5: 0x3800, 65504: 0x7bff, -2: 0xc000, 1e-8: 0}
	for f, want := range half {
		if got := f32ToF16(f); got != want {
			t.Errorf("f32ToF16(%v) = %#04x, want %#04x", f, got, want)
		}
	}
	if v := f16ToF64(0x7c00); !math.IsInf(v, 1) {
		t.Errorf("f16 0x7c00 = %v, want +Inf", v)
	}
	e4m3 := map[byte]float64{0x38: 1, 0x40: 2, 0x7e: 448, 0x01: math.Pow(2, -9)}
	for b, want := range e4m3 {
		if got := fromFP8(b, 4, 3, 7); got != want {
			t.Errorf("e4m3 %#02x = %v, want %v", b, got, want)
		}
	}
	if !math.IsNaN(fromFP8(0x7f, 4, 3, 7)) {
		t.Error("e4m3 0x7f should be NaN")
	}
	e5m2 := map[byte]float64{0x3c: 1, 0x40: 2, 0x7b: 57344}
	for b, want := range e5m2 {
		if got := fromFP8(b, 5, 2, 15); got != want {
			t.Errorf("e5m2 %#02x = %v, want %v", b, got, want)
		}
	}
}

func TestReduceAndTolerance(t *testing.T) {
	vals := []float64{1, 4, 2}
	for op, want := range map[int]float64{0: 7, 1: 8, 2: 4, 3: 1, 4: 7.0 / 3} {
		if got := reduceValues(op, vals); math.Abs(got-want) > 1e-12 {
			t.Errorf("reduce op %d = %v, want %v", op, got, want)
		}
	}
	f32, _ := LookupDType("float")
	i32, _ := LookupDType("int")
	bf16, _ := LookupDType("bf16")
	if closeEnough(f32, 0, 7.0001, 7) {
		t.Error("sums must match exactly")
	}
	if !closeEnough(i32, 4, 2, 7.0/3) || closeEnough(i32, 4, 4, 7.0/3) {
		t.Error("integer averages may be off by truncation only")
	}
	if !closeEnough(bf16, 4, 2.33, 7.0/3) || closeEnough(f32, 4, math.NaN(), 1) {
		t.Error("bf16 average tolerance or NaN handling wrong")
	}
}

func TestModulusKeepsResultsExact(t *testing.T) {
	// With up to 8 ranks every sum and product of pattern values must be
	// representable exactly in its type, or the check would flag NCCL.
	for _, dt := range DTypes {
		for op := 0; op < 4; op++ {
			m := modulus(dt, op)
			vals := make([]float64, 8)
			for i := range vals {
				vals[i] = float64(m)
			}
			r := reduceValues(op, vals)
			b := make([]byte, dt.Size)
			encode(dt, b, r)
			if got := decode(dt, b); got != r {
				t.Errorf("%s op %d: worst case %v stored as %v", dt.Name, op, r, got)
			}
		}
	}
}

func TestLookupAndSweep(t *testing.T) {
	for name, want := range map[string]string{"half": "float16", "BF16": "bfloat16", "fp8_e4m3": "float8e4m3", "uint64": "uint64"} {
		dt, err := LookupDType(name)
		if err != nil || dt.Name != want {
			t.Errorf("LookupDType(%q) = %v, %v; want %s", name, dt.Name, err, want)
		}
	}
	if _, err := LookupDType("float128"); err == nil {
		t.Error("LookupDType(float128) should fail")
	}
	if _, err := lookupOp("xor"); err == nil {
		t.Error("lookupOp(xor) should fail")
	}
	got := Sweep(8, 64, 2)
	if len(got) != 4 || got[0] != 8 || got[3] != 64 {
		t.Errorf("Sweep(8, 64, 2) = %v", got)
	}
	if v := versionString(22809); v != "2.28.9" {
		t.Errorf("versionString(22809) = %s", v)
	}
	if v := versionString(2708); v != "2.7.8" {
		t.Errorf("versionString(2708) = %s", v)
	}
}

func TestMeasureRejectsBadConfig(t *testing.T) {
	for _, cfg := range []Config{
		{Collectives: []string{"allreduce"}},
		{DType: "float128"},
		{RedOp: "xor"},
		{Modes: []string{"sideways"}},
	} {
		if _, err := Measure(cfg); err == nil || errors.Is(err, probes.ErrUnavailable) {
			t.Errorf("Measure(%+v) = %v, want a configuration error", cfg, err)
		}
	}
}

// TestMeasureOnGPU runs every collective at small sizes where NCCL and a
// GPU are present, and checks every result.
func TestMeasureOnGPU(t *testing.T) {
	if _, _, err := Version(); err != nil {
		hwtest.Skipf(t, hwtest.GPU, "no NCCL here: %v", err)
	}
	run, err := Measure(Config{Collectives: Collectives, Sizes: []int64{8, 4096, 1 << 20}, Check: true, Warmup: 1, Iters: 2, Reps: 2})
	if errors.Is(err, probes.ErrUnavailable) {
		hwtest.Skipf(t, hwtest.GPU, "no GPU here: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Samples) == 0 || run.NCCL == "" || run.GPUCount == 0 {
		t.Fatalf("empty run: %+v", run)
	}
	for _, s := range run.Samples {
		if s.Wrong != 0 || s.MedianUS <= 0 {
			t.Errorf("%s %d bytes in-place=%v: wrong %d, median %v us", s.Op, s.Bytes, s.InPlace, s.Wrong, s.MedianUS)
		}
	}
}

func testChild(t *testing.T, mode string) []string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("COMMLAB_TEST_CHILD", mode)
	return []string{exe, "-test.run=^$"}
}

// TestMeasureInChildProtocol runs the real child protocol with the test
// binary as the child: config and env go in, a run (here failing for lack
// of NCCL, or measured where NCCL is present) comes back with the child's
// output and the NCCL_* settings.
func TestMeasureInChildProtocol(t *testing.T) {
	argv := testChild(t, "worker")
	cfg := Config{Sizes: []int64{8}, Warmup: 1, Iters: 1, Reps: 1, Env: map[string]string{"NCCL_PROTO": "Simple"}}
	run, err := MeasureInChild(context.Background(), cfg, argv)
	if run == nil {
		t.Fatalf("no run back: %v", err)
	}
	if run.Env["NCCL_PROTO"] != "Simple" {
		t.Errorf("child did not see NCCL_PROTO: env %v", run.Env)
	}
	if _, _, verr := Version(); verr != nil {
		if err == nil || !strings.Contains(run.Error, "unavailable") {
			t.Errorf("without NCCL the child must report it: err %v, run.Error %q", err, run.Error)
		}
		return
	}
	if err != nil && !errors.Is(err, probes.ErrUnavailable) && !strings.Contains(err.Error(), "unavailable") {
		t.Fatalf("child run failed: %v", err)
	}
}

// TestMeasureInChildKeepsTopologyFiles: the dumps NCCL writes and the
// topology it was given come back in the run's logs.
func TestMeasureInChildKeepsTopologyFiles(t *testing.T) {
	argv := testChild(t, "topo")
	cfg := Config{Sizes: []int64{8}, Warmup: 1, Iters: 1, Reps: 1, DumpTopology: true, TopoXML: "<system edited/>"}
	run, _ := MeasureInChild(context.Background(), cfg, argv)
	if run == nil {
		t.Fatal("no run back")
	}
	for name, want := range map[string]string{
		"nccl-topo-file":  "<system edited/>",
		"nccl-topo-dump":  "dumped from <system edited/>",
		"nccl-graph-dump": "<graphs rank=0/>",
	} {
		if got := run.Logs[name]; got != want {
			t.Errorf("Logs[%q] = %q, want %q", name, got, want)
		}
	}
}

// TestMeasureTopologyEdit: the second run reads the first run's dump,
// edited, and the first run's files ride along.
func TestMeasureTopologyEdit(t *testing.T) {
	argv := testChild(t, "topo-dump")
	cfg := Config{Sizes: []int64{8}, Warmup: 1, Iters: 1, Reps: 1}
	run, _ := MeasureTopologyEdit(context.Background(), cfg, "no-nic", argv)
	if run == nil {
		t.Fatal("no run back")
	}
	if got := run.Logs["nccl-topo-file"]; strings.Contains(got, "<nic") || !strings.Contains(got, "<gpu") {
		t.Errorf("edited topology still has its NIC or lost its GPU:\n%s", got)
	}
	if !strings.Contains(run.Logs["base-nccl-topo-dump"], "<nic>") {
		t.Errorf("base dump not kept: %q", run.Logs["base-nccl-topo-dump"])
	}
	if run.Settings["topo_edit"] != "no-nic" {
		t.Errorf("settings %v", run.Settings)
	}
	if _, err := MeasureTopologyEdit(context.Background(), cfg, "nvlink-count=1", argv); !errors.Is(err, ncclxml.ErrEdit) {
		t.Errorf("an edit with nothing to change: err %v, want ncclxml.ErrEdit", err)
	}
}

// TestMeasureInChildWatchdog: a child that stops answering is killed and
// reported as a timeout.
func TestMeasureInChildWatchdog(t *testing.T) {
	old := childSlack
	childSlack = 200 * time.Millisecond
	defer func() { childSlack = old }()
	argv := testChild(t, "hang")
	start := time.Now()
	run, err := MeasureInChild(context.Background(), Config{Timeout: 100 * time.Millisecond}, argv)
	if !errors.Is(err, ErrTimeout) {
		t.Fatalf("err = %v, want ErrTimeout", err)
	}
	if run == nil || !strings.Contains(run.Error, "killed") || !strings.Contains(run.Logs["output"], "pretending") {
		t.Errorf("run = %+v", run)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("watchdog took %v", d)
	}
}

// TestMeasureInChildReadsUsersDebugFile: a run given its own
// NCCL_DEBUG_FILE pattern still keeps the log NCCL wrote there.
func TestMeasureInChildReadsUsersDebugFile(t *testing.T) {
	argv := testChild(t, "debugfile")
	pattern := filepath.Join(t.TempDir(), "nccl.%h.%p.log")
	cfg := Config{Sizes: []int64{8}, Warmup: 1, Iters: 1, Reps: 1, Env: map[string]string{"NCCL_DEBUG": "INFO", "NCCL_DEBUG_FILE": pattern}}
	run, _ := MeasureInChild(context.Background(), cfg, argv)
	want := "NCCL INFO hello" // the stand-in's line
	if _, _, err := Version(); err == nil {
		want = "NCCL INFO " // NCCL's own log replaced it
	}
	if run == nil || !strings.Contains(run.Logs["nccl-debug"], want) {
		t.Fatalf("the log NCCL wrote under %s is not in the run: %+v", pattern, run)
	}
}

func TestDebugFileName(t *testing.T) {
	host, _ := os.Hostname()
	host, _, _ = strings.Cut(host, ".")
	for pattern, want := range map[string]string{
		"/tmp/nccl.%h.%p.log": "/tmp/nccl." + host + ".4242.log",
		"/tmp/plain.log":      "/tmp/plain.log",
		"/tmp/100%%-%x-%":     "/tmp/100%-%x-%",
	} {
		if got := DebugFileName(pattern, 4242); got != want {
			t.Errorf("DebugFileName(%q) = %q, want %q", pattern, got, want)
		}
	}
}
