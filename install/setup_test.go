package install

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSetupRefusesTwoScopes(t *testing.T) {
	if err := (Setup{User: true, Prefix: t.TempDir(), Name: "x"}).Run(io.Discard, io.Discard); !errors.Is(err, ErrScopes) {
		t.Errorf("--user with --prefix: %v, want ErrScopes", err)
	}
}

func TestSetupInstallsAndRemovesUnderPrefix(t *testing.T) {
	prefix := t.TempDir()
	var stdout bytes.Buffer
	if err := (Setup{Prefix: prefix, Name: "commlab-test"}).Run(&stdout, io.Discard); err != nil {
		t.Fatal(err)
	}
	spec := filepath.Join(PrefixDataDir(prefix), "kernels", "commlab-test", "kernel.json")
	if _, err := os.Stat(spec); err != nil || !strings.Contains(stdout.String(), "installed kernelspec commlab-test in ") || !strings.Contains(stdout.String(), "(--prefix "+prefix+")") {
		t.Fatalf("kernelspec %v; stdout:\n%s", err, stdout.String())
	}
	stdout.Reset()
	if err := (Setup{Prefix: prefix, Name: "commlab-test", Uninstall: true}).Run(&stdout, io.Discard); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(spec); !errors.Is(err, os.ErrNotExist) || !strings.HasPrefix(stdout.String(), "removed kernelspec commlab-test from ") {
		t.Errorf("after uninstall: %v; stdout %q", err, stdout.String())
	}
}

func TestScopeFlag(t *testing.T) {
	if scopeFlag(true, "") != "--sys-prefix" || scopeFlag(false, "/opt/env") != "--prefix /opt/env" {
		t.Error("scopeFlag")
	}
}
