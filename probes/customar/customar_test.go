package customar

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/commlab/commlab/probes"

	"github.com/commlab/commlab/probes/hwtest"
)

// rankLog is the output format customar.cu prints (see its header), for
// the parser's and FromLogs's tests; the numbers are placeholders of the
// format, not measurements.
func rankLog(rank, nranks int, bus, how string, usec string, bad bool) string {
	var b strings.Builder
	b.WriteString("info rank " + itoa(rank) + " nranks " + itoa(nranks) + " pid 100\n")
	b.WriteString("info device 0 " + bus + " NVIDIA H200\n")
	b.WriteString("info cuda runtime 13000 driver 13000\n")
	b.WriteString("info launch blocks 36 threads 512 timeout_ms 10000 iters 5 warmup 1\n")
	for r := 0; r < nranks; r++ {
		if r != rank {
			b.WriteString("info peer " + itoa(r) + " device 0 " + bus + " " + how + "\n")
		}
	}
	for _, algo := range []string{"oneshot", "twoshot"} {
		for _, size := range []string{"8", "16"} {
			if bad && algo == "twoshot" && size == "16" {
				b.WriteString("check twoshot 16 bad 3 -nan 6\n")
			} else {
				b.WriteString("check " + algo + " " + size + " ok\n")
			}
			b.WriteString("result " + algo + " " + size + " 5 " + usec + "\n")
		}
	}
	b.WriteString("done\n")
	return b.String()
}

func itoa(i int) string { return strconv.Itoa(i) }

func TestParse(t *testing.T) {
	o, err := Parse(rankLog(1, 2, "00000000:19:00.0", "same-gpu", "12.5", true) + "customar: rank 1: 1 sizes gave wrong sums\n")
	if err != nil {
		t.Fatal(err)
	}
	if o.Rank != 1 || o.NRanks != 2 || o.GPU != "NVIDIA H200" || o.Bus != "00000000:19:00.0" || o.Runtime != 13000 || !o.Done {
		t.Errorf("header %+v", o)
	}
	if len(o.Peers) != 1 || o.Peers[0] != (Peer{Rank: 0, Device: 0, Bus: "00000000:19:00.0", How: "same-gpu"}) {
		t.Errorf("peers %+v", o.Peers)
	}
	if len(o.Checks) != 4 || len(o.Results) != 4 || o.Launch["blocks"] != "36" {
		t.Fatalf("checks %d results %d launch %v", len(o.Checks), len(o.Results), o.Launch)
	}
	if c := o.Checks[3]; c.OK || c.Index != 3 || !math.IsNaN(c.Got) || c.Want != 6 {
		t.Errorf("bad check %+v", c)
	}
	if r := o.Results[0]; r != (Result{Algo: "oneshot", Bytes: 8, Iters: 5, USec: 12.5}) {
		t.Errorf("result %+v", r)
	}
	if len(o.Errors) != 1 {
		t.Errorf("errors %v", o.Errors)
	}
	for _, bad := range []string{
		"result oneshot 8 5\n",
		"result oneshot x 5 1.0\n",
		"result oneshot 8 0 1.0\n",
		"result oneshot 8 5 nan\n",
		"check oneshot 8 maybe\n",
		"check oneshot 8 bad 1 2\n",
		"info peer 1 device\n",
		"info cuda runtime x driver 1\n",
		"info rank -1 nranks 2\n",
	} {
		if _, err := Parse(bad); err == nil || !strings.Contains(err.Error(), "line 1") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

func TestFromLogs(t *testing.T) {
	run, err := FromLogs([]string{
		rankLog(0, 2, "00000000:19:00.0", "same-gpu", "10.0", false),
		rankLog(1, 2, "00000000:19:00.0", "same-gpu", "14.0", true),
	})
	if err != nil {
		t.Fatal(err)
	}
	if run.Kind != Kind || run.Settings["placement"] != PlacementSameGPU || run.GPUCount != 1 || run.CUDA != "13.0" || len(run.Notes) != 1 {
		t.Errorf("run %+v", run)
	}
	if len(run.Samples) != 4 {
		t.Fatalf("%d samples", len(run.Samples))
	}
	s := run.Samples[0]
	// The slowest rank's time; all_reduce busbw factor 2(n-1)/n = 1.
	if s.Op != Op || s.Label != OneShot || s.MedianUS != 14 || s.Wrong != 0 || s.Ranks != 2 || s.BusBW != s.AlgBW {
		t.Errorf("sample %+v", s)
	}
	if w := run.Samples[3]; w.Label != TwoShot || w.Bytes != 16 || w.Wrong != 1 {
		t.Errorf("wrong sample %+v", w)
	}
	// One rank per GPU is a p2p run; one rank alone a single run.
	p2p, err := FromLogs([]string{rankLog(0, 2, "0000:19:00.0", "p2p", "5", false), rankLog(1, 2, "0000:2a:00.0", "p2p", "5", false)})
	if err != nil || p2p.Settings["placement"] != PlacementP2P || p2p.GPUCount != 2 || len(p2p.Notes) != 0 {
		t.Errorf("p2p %v %+v", err, p2p)
	}
	one, err := FromLogs([]string{rankLog(0, 1, "0000:19:00.0", "", "3", false)})
	if err != nil || one.Settings["placement"] != PlacementSingle || one.Samples[0].BusBW != 0 {
		t.Errorf("single %v %+v", err, one)
	}
	if _, err := FromLogs([]string{rankLog(1, 2, "b", "same-gpu", "1", false), rankLog(0, 2, "b", "same-gpu", "1", false)}); err == nil {
		t.Error("logs out of rank order accepted")
	}
	if _, err := FromLogs(nil); err == nil {
		t.Error("no logs accepted")
	}
}

func TestReadProvenance(t *testing.T) {
	p := ReadProvenance("# chapter 7 recording\ndate_utc: 2026-12-01T22:30:00Z\n" +
		"--- nvidia-smi --query-gpu=name,driver_version,pci.bus_id,compute_mode,clocks.max.sm --format=csv\n" +
		"name, driver_version, pci.bus_id, compute_mode, clocks.max.sm [MHz]\nNVIDIA H200, 580.159.04, 00000000:19:00.0, Default, 1980 MHz\n--- nvcc --version\n")
	if p.GPU != "NVIDIA H200" || p.Driver != "580.159.04" || !p.Date.Equal(time.Date(2026, 12, 1, 22, 30, 0, 0, time.UTC)) {
		t.Errorf("%+v", p)
	}
	r := &probes.Run{}
	p.Apply(r)
	if r.Driver != "580.159.04" || r.GPUModel != "NVIDIA H200" {
		t.Errorf("%+v", r)
	}
	if z := ReadProvenance("nothing here"); z.GPU != "" || !z.Date.IsZero() {
		t.Errorf("%+v", z)
	}
}

func TestConfigArgs(t *testing.T) {
	c := Config{Ranks: 2, SameGPU: true, Timeout: 3 * time.Second}
	got := strings.Join(c.Args(1, "/tmp/d"), " ")
	want := "--rank 1 --nranks 2 --dir /tmp/d --device 0 --min 8 --max 8388608 --iters 20 --warmup 5 --algos oneshot,twoshot --blocks 36 --threads 512 --timeout-ms 3000"
	if got != want {
		t.Errorf("args\n got %s\nwant %s", got, want)
	}
	for _, bad := range []Config{{Ranks: 9}, {MinBytes: 6}, {Algos: []string{"threeshot"}}, {Blocks: 65}, {Threads: 100}} {
		if err := bad.Validate(); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}

// fakeProgram writes a shell script that speaks customar's protocol: it
// prints a rank's log, or fails the way the env var FAKE_FAIL says.
func fakeProgram(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "customar")
	script := "#!/bin/sh\nrank=0; n=1\nwhile [ $# -gt 0 ]; do case $1 in --rank) rank=$2;; --nranks) n=$2;; esac; shift 2; done\n" + body
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestMeasureWithFakeRanks(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ok := fakeProgram(t, `echo "info rank $rank nranks $n pid $$"
echo "info device 0 0000:19:00.0 NVIDIA H200"
echo "info cuda runtime 13000 driver 13000"
echo "check oneshot 8 ok"
echo "result oneshot 8 20 1$rank.5"
echo done
`)
	run, err := MeasureWith(ctx, ok, Config{Ranks: 3, Algos: []string{OneShot}})
	if err != nil {
		t.Fatalf("%v\n%+v", err, run)
	}
	if len(run.Samples) != 1 || run.Samples[0].MedianUS != 12.5 || run.Samples[0].Ranks != 3 || len(run.Logs) != 3 {
		t.Errorf("%+v", run)
	}
	// Rank 1 has no GPU; the others would wait for it: they are ended, and
	// the error is rank 1's.
	unavailable := fakeProgram(t, `if [ "$rank" = 1 ]; then echo "customar: rank 1: unavailable: no CUDA device (0 devices)" >&2; exit 3; fi
exec sleep 3600
`)
	_, err = MeasureWith(ctx, unavailable, Config{Ranks: 2})
	if !errors.Is(err, probes.ErrUnavailable) || !strings.Contains(err.Error(), "no CUDA device") {
		t.Errorf("unavailable: %v", err)
	}
	if ctx.Err() != nil {
		t.Fatalf("the waiting rank was not ended: MeasureWith returned only at the test's deadline")
	}
	timeout := fakeProgram(t, `echo "customar: rank $rank: oneshot 8 B: flag wait timed out after 10 ms (start barrier, block 0, waiting for rank 1)" >&2; exit 4
`)
	if _, err := MeasureWith(ctx, timeout, Config{Ranks: 2}); !errors.Is(err, ErrTimeout) {
		t.Errorf("timeout: %v", err)
	}
	wrong := fakeProgram(t, `echo "info rank $rank nranks $n pid 1"
echo "check oneshot 8 bad 0 nan 3"
echo "result oneshot 8 1 1.0"
echo "customar: rank $rank: 1 sizes gave wrong sums" >&2; exit 5
`)
	run, err = MeasureWith(ctx, wrong, Config{Ranks: 2})
	if !errors.Is(err, ErrWrongSum) || run == nil || run.Samples[0].Wrong != 2 {
		t.Errorf("wrong: %v %+v", err, run)
	}
}

func TestBuildWithoutNVCC(t *testing.T) {
	t.Setenv("NVCC", "no-such-nvcc-here")
	_, err := Build(context.Background(), t.TempDir(), "")
	if !errors.Is(err, probes.ErrUnavailable) {
		t.Errorf("%v", err)
	}
}

// TestBuildAndRunOnGPU builds customar.cu and runs two ranks where nvcc and
// a GPU are present; it skips elsewhere.
func TestBuildAndRunOnGPU(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	bin, err := Build(ctx, t.TempDir(), "")
	if errors.Is(err, probes.ErrUnavailable) {
		hwtest.Skipf(t, hwtest.NVCC, "cannot build: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	run, err := MeasureWith(ctx, bin, Config{Ranks: 2, MaxBytes: 64 << 10, Iters: 3, Warmup: 1, Timeout: 20 * time.Second})
	if errors.Is(err, probes.ErrUnavailable) {
		hwtest.Skipf(t, hwtest.GPU, "no GPU: %v", err)
	}
	if err != nil {
		t.Fatalf("%v\n%v", err, run)
	}
	for _, s := range run.Samples {
		if s.Wrong != 0 {
			t.Errorf("%s %d B: wrong on %d ranks", s.Label, s.Bytes, s.Wrong)
		}
	}
}

func TestDriverRelease(t *testing.T) {
	for text, want := range map[string]string{
		"NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.159.04  Thu Oct 30 00:00:00 UTC 2025\nGCC version:  gcc version 12.2.0\n": "580.159.04",
		"NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  570.86.15  Release Build\n":                                          "570.86.15",
		"":                      "",
		"GCC version: 12.2.0\n": "",
	} {
		if got := driverRelease(text); got != want {
			t.Errorf("%q: %q, want %q", text, got, want)
		}
	}
}
