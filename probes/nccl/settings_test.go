package nccl

import (
	"errors"
	"flag"
	"io/fs"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestSettingsConfig(t *testing.T) {
	with := func(change func(*Settings)) Settings {
		s := DefaultSettings()
		s.Sizes = []int64{8, 16}
		change(&s)
		return s
	}
	for _, tt := range []struct {
		name    string
		s       Settings
		wantErr string
		bad     bool // the error wraps ErrSettings
		check   func(Config) bool
	}{
		{name: "defaults", s: with(func(*Settings) {}), check: func(c Config) bool {
			return len(c.Collectives) == 1 && c.Collectives[0] == "all_reduce" && c.Env["NCCL_DEBUG"] == "INFO" && c.Env["NCCL_DEBUG_SUBSYS"] == DefaultDebugSubsys && c.Check
		}},
		{name: "all collectives", s: with(func(s *Settings) { s.Collectives = "all" }), check: func(c Config) bool { return len(c.Collectives) == len(Collectives) }},
		{name: "settings become NCCL's variables", s: with(func(s *Settings) { s.Algo, s.Proto, s.Channels, s.Env = "Ring", "LL", 4, []string{"A=b=c"} }),
			check: func(c Config) bool {
				return c.Env["NCCL_ALGO"] == "Ring" && c.Env["NCCL_PROTO"] == "LL" && c.Env["NCCL_MIN_NCHANNELS"] == "4" && c.Env["NCCL_MAX_NCHANNELS"] == "4" && c.Env["A"] == "b=c"
			}},
		{name: "no debug, no subsys", s: with(func(s *Settings) { s.Debug = "" }), check: func(c Config) bool { _, ok := c.Env["NCCL_DEBUG_SUBSYS"]; return !ok }},
		{name: "unknown collective", s: with(func(s *Settings) { s.Collectives = "all_reduce,gossip" }), wantErr: `unknown collective "gossip"`, bad: true},
		{name: "bad mode", s: with(func(s *Settings) { s.Modes = "out,sideways" }), wantErr: `mode "sideways": want out or in`, bad: true},
		{name: "bad dtype", s: with(func(s *Settings) { s.DType = "float128" }), wantErr: "float128"},
		{name: "bad reduction", s: with(func(s *Settings) { s.RedOp = "xor" }), wantErr: `unknown reduction "xor"`, bad: true},
		{name: "no iterations", s: with(func(s *Settings) { s.Iters = 0 }), wantErr: "--iters, --reps and --timeout must be positive", bad: true},
		{name: "env without a value", s: with(func(s *Settings) { s.Env = []string{"NCCL_ALGO"} }), wantErr: `--env "NCCL_ALGO": want NAME=VALUE`, bad: true},
		{name: "topology dump in process", s: with(func(s *Settings) { s.InProcess, s.TopoDump = true, true }), wantErr: "drop --in-process", bad: true},
		{name: "unknown edit", s: with(func(s *Settings) { s.TopoEdit = "no-such-edit" }), wantErr: "no-such-edit"},
		{name: "edit and file", s: with(func(s *Settings) { s.TopoEdit, s.TopoFile = "no-nic", "settings_test.go" }), wantErr: "does not take --topo-file", bad: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := tt.s.Config()
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || errors.Is(err, ErrSettings) != tt.bad {
					t.Errorf("error %v (ErrSettings %v), want %q (ErrSettings %v)", err, errors.Is(err, ErrSettings), tt.wantErr, tt.bad)
				}
				return
			}
			if err != nil || !tt.check(c) {
				t.Errorf("config %+v, %v", c, err)
			}
		})
	}
	_, err := with(func(s *Settings) { s.TopoFile = filepath.Join(t.TempDir(), "none.xml") }).Config()
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing topology file: %v, want fs.ErrNotExist", err)
	}
}

// TestSettingsFlags holds the flags of commlab probe nccl to the settings:
// unset, they keep DefaultSettings; given, each sets its field.
func TestSettingsFlags(t *testing.T) {
	tests := []struct {
		args   []string
		change func(*Settings)
	}{
		{nil, func(*Settings) {}},
		{[]string{"--coll", "all_gather,broadcast", "--dtype", "bfloat16", "--op", "max", "--root", "1", "--modes", "in"}, func(s *Settings) {
			s.Collectives, s.DType, s.RedOp, s.Root, s.Modes = "all_gather,broadcast", "bfloat16", "max", 1, "in"
		}},
		{[]string{"--check=false", "--blocking", "--reps", "9", "--timeout", "1m", "--algo", "Ring", "--proto", "LL", "--nchannels", "4"}, func(s *Settings) {
			s.Check, s.Blocking, s.Reps, s.Timeout, s.Algo, s.Proto, s.Channels = false, true, 9, time.Minute, "Ring", "LL", 4
		}},
		{[]string{"--debug", "", "--debug-subsys", "ALL", "--in-process", "--topo-dump", "--topo-file", "t.xml", "--topo-edit", "x", "--env", "A=1", "--env", "B=2"}, func(s *Settings) {
			s.Debug, s.DebugSubsys, s.InProcess, s.TopoDump, s.TopoFile, s.TopoEdit, s.Env = "", "ALL", true, true, "t.xml", "x", []string{"A=1", "B=2"}
		}},
	}
	for _, tc := range tests {
		fs := flag.NewFlagSet("nccl", flag.ContinueOnError)
		s := DefaultSettings()
		s.AddFlags(fs)
		if err := fs.Parse(tc.args); err != nil {
			t.Fatal(err)
		}
		want := DefaultSettings()
		tc.change(&want)
		if !reflect.DeepEqual(s, want) {
			t.Errorf("%q:\n got %+v\nwant %+v", tc.args, s, want)
		}
	}
}
