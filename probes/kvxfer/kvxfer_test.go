package kvxfer

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/commlab/commlab/probes/launch"
	"github.com/commlab/commlab/probes/measure"
)

func TestRecordedModeWithoutRecording(t *testing.T) {
	m, err := Measure(context.Background(), measure.ModeRecorded, Config{}, "nixl-kv-no-such-run")
	if !errors.Is(err, ErrNoRecording) {
		t.Fatalf("want ErrNoRecording, got %v", err)
	}
	if m == nil || m.Run != nil || m.Recorded != "nixl-kv-no-such-run" {
		t.Errorf("measurement %+v", m)
	}
}

func TestBadMode(t *testing.T) {
	if _, err := Measure(context.Background(), "sometimes", Config{}, RecordedName); !errors.Is(err, measure.ErrMode) {
		t.Errorf("want ErrMode, got %v", err)
	}
}

// fakePython puts a python3 on PATH that answers the import checks with
// code and, run as the script, writes run (when not empty) to --out.
func fakePython(t *testing.T, checks int, run string) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("shell script")
	}
	dir := t.TempDir()
	script := "#!/bin/sh\nif [ \"$1\" = -c ]; then echo 'no NIXL: fake'; exit " + string(rune('0'+checks)) + "; fi\n" +
		"shift\nwhile [ $# -gt 0 ]; do if [ \"$1\" = --out ]; then out=$2; fi; shift; done\n"
	if run != "" {
		script += "cat > \"$out\" <<'JSON'\n" + run + "\nJSON\n"
	} else {
		script += "echo 'kv_nixl: backend UCX not loaded' >&2; exit 1\n"
	}
	if err := os.WriteFile(filepath.Join(dir, "python3"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
}

const liveRun = `{"kind":"nixl-kv","command":["commlab","probe","kv-nixl","--"],"gpu_model":"NVIDIA H200","gpu_count":1,
"samples":[{"op":"nixl_d2h","label":"whole","bytes":16777216,"iters":1,"times_us":[400],"median_us":400,"algbw_gbps":41.9,"wrong":0}]}`

func TestAutoFallsBackWhenNIXLMissing(t *testing.T) {
	fakePython(t, 3, "")
	m, err := Measure(context.Background(), measure.ModeAuto, Config{}, "nixl-kv-no-such-run")
	if !errors.Is(err, ErrNoRecording) {
		t.Fatalf("want ErrNoRecording, got %v", err)
	}
	if !strings.Contains(m.Fallback, "no PyTorch with a GPU here") || !errors.Is(m.LiveError, launch.ErrNoTorch) {
		t.Errorf("fallback %q, live error %v", m.Fallback, m.LiveError)
	}
	if _, err := Measure(context.Background(), measure.ModeLive, Config{}, RecordedName); err == nil || !strings.Contains(err.Error(), "live") {
		t.Errorf("live mode: %v", err)
	}
}

func TestLiveRunReadsTheScriptsRun(t *testing.T) {
	fakePython(t, 0, liveRun)
	m, err := Measure(context.Background(), measure.ModeAuto, Config{}, RecordedName)
	if err != nil {
		t.Fatal(err)
	}
	if !m.Live || len(m.Run.Select(OpNIXLD2H, LabelWhole)) != 1 {
		t.Errorf("measurement %+v", m)
	}
}

func TestLiveFailureSaysWhy(t *testing.T) {
	fakePython(t, 0, "")
	_, err := Measure(context.Background(), measure.ModeLive, Config{}, RecordedName)
	if err == nil || !strings.Contains(err.Error(), "backend UCX not loaded") {
		t.Errorf("want the script's last line, got %v", err)
	}
}

func TestScriptEmbedded(t *testing.T) {
	src := string(launch.KVNixl.Source())
	for _, want := range []string{"--out", OpNIXLD2H, OpNIXLH2D, OpTorchD2H, OpTorchH2D, `"whole"`, "initialize_xfer", "os.replace"} {
		if !strings.Contains(src, want) {
			t.Errorf("kv_nixl.py lacks %q", want)
		}
	}
}

// TestFetch holds the run probe kv-nixl shows: the recording named (the
// lab's by default), or a run of the script.
func TestFetch(t *testing.T) {
	fakePython(t, 0, liveRun)
	ctx := context.Background()
	tests := []struct {
		name     string
		recorded bool
		names    []string
		err      error
	}{
		{"recorded, default", true, nil, nil},
		{"recorded, named", true, []string{RecordedName}, nil},
		{"recorded, unknown", true, []string{"nixl-kv-no-such-run"}, ErrNoRecording},
		{"live", false, []string{"ignored"}, nil},
	}
	for _, tc := range tests {
		run, err := Fetch(ctx, tc.recorded, tc.names, Config{})
		if !errors.Is(err, tc.err) || (tc.err == nil) != (err == nil) {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if tc.err == nil && len(run.Select(OpNIXLD2H, LabelWhole)) == 0 {
			t.Errorf("%s: run %+v", tc.name, run)
		}
	}
}
