package launch_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/commlab/commlab/probes/launch"
)

func TestHangOptionsArgs(t *testing.T) {
	got, err := launch.HangOptions{Scenario: "core", Out: "/tmp/x", NProc: 64, TimeoutS: 20, Steps: 3000, HangAt: 3000, StuckRank: 37, DeadlineS: 95}.Args()
	want := []string{"run", "--scenario", "core", "--out", "/tmp/x", "--nproc", "64", "--timeout", "20", "--steps", "3000", "--hang-at", "3000", "--stuck-rank", "37", "--deadline", "95"}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("Args = %q, %v; want %q", got, err, want)
	}
	if got, _ := (launch.HangOptions{Scenario: "size", Out: "o"}).Args(); !reflect.DeepEqual(got, []string{"run", "--scenario", "size", "--out", "o"}) {
		t.Errorf("defaults: %q", got)
	}
	for _, o := range []launch.HangOptions{{Scenario: "deadlock", Out: "o"}, {Scenario: "size"}} {
		if _, err := o.Args(); err == nil || !strings.HasPrefix(err.Error(), "launch: ") {
			t.Errorf("%+v: err %v", o, err)
		}
	}
}

// The embedded script is valid Python and names every scenario Go knows.
func TestHangLabScript(t *testing.T) {
	src := string(launch.HangLab.Source())
	for _, s := range launch.HangScenarios {
		if !strings.Contains(src, `"`+s+`"`) {
			t.Errorf("script does not know scenario %q", s)
		}
	}
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3 here: ", err)
	}
	path := filepath.Join(t.TempDir(), launch.HangLab.Name)
	if err := os.WriteFile(path, launch.HangLab.Source(), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(py, "-c", "import ast,sys; ast.parse(open(sys.argv[1]).read())", path).CombinedOutput(); err != nil {
		t.Errorf("script does not parse: %v\n%s", err, out)
	}
}

func TestRunHangLabRefusesBadOptions(t *testing.T) {
	err := launch.RunHangLab(context.Background(), launch.HangOptions{Scenario: "nope", Out: t.TempDir()}, nil, nil)
	if err == nil || errors.Is(err, launch.ErrNotInstalled) {
		t.Errorf("bad scenario: %v", err)
	}
}
