package conn

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadInfoJupyterFiles(t *testing.T) {
	cases := []struct {
		file      string
		transport string
		ip        string
		shell     int
	}{
		{"connection-tcp.json", "tcp", "127.0.0.1", 52275},
		{"connection-ipc.json", "ipc", "/tmp/kernel-commlab-test", 1},
	}
	for _, tc := range cases {
		t.Run(tc.file, func(t *testing.T) {
			info, err := ReadInfo(filepath.Join("testdata", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			if info.Transport != tc.transport || info.IP != tc.ip || info.ShellPort != tc.shell {
				t.Fatalf("info %+v", info)
			}
			if info.SignatureScheme != "hmac-sha256" || len(info.Key) != 36 || info.KernelName != "commlab" {
				t.Fatalf("info %+v", info)
			}
			if info.IOPubPort == 0 || info.StdinPort == 0 || info.ControlPort == 0 || info.HBPort == 0 {
				t.Fatalf("a port is missing: %+v", info)
			}
		})
	}
}

func TestReadInfoErrors(t *testing.T) {
	cases := []struct {
		name    string
		content string // empty: the file does not exist
		want    string
		bad     bool // wraps ErrBadInfo
	}{
		{"missing file", "", "read connection file", false},
		{"not json", `{"transport": "tcp",`, "unexpected end", true},
		{"bad transport", `{"transport":"udp","ip":"127.0.0.1"}`, `transport "udp"`, true},
		{"no ip", `{"transport":"tcp","ip":""}`, "empty ip", true},
		{"port out of range", `{"transport":"tcp","ip":"127.0.0.1","hb_port":70000}`, "hb_port 70000", true},
		{"port wrong type", `{"transport":"tcp","ip":"127.0.0.1","shell_port":"5555"}`, "shell_port", true},
		{"unsupported scheme", `{"transport":"tcp","ip":"127.0.0.1","signature_scheme":"hmac-md5","key":"k"}`, "hmac-md5", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "kernel.json")
			if tc.content != "" {
				if err := os.WriteFile(path, []byte(tc.content), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			_, err := ReadInfo(path)
			if err == nil {
				t.Fatal("no error")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q lacks %q", err, tc.want)
			}
			if errors.Is(err, ErrBadInfo) != tc.bad {
				t.Errorf("error %v: errors.Is(ErrBadInfo) = %v", err, !tc.bad)
			}
		})
	}
}
