package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCourseWritesSourceNotebooks(t *testing.T) {
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	if code := dispatch([]string{"course", "--out", dir, "02-interconnect", "--exchange", "/srv/exchange"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if !strings.Contains(stdout.String(), "assignment 02-interconnect: 6 points") {
		t.Errorf("stdout: %s", stdout.String())
	}
	src, err := os.ReadFile(filepath.Join(dir, "source", "02-interconnect", "02-interconnect.ipynb"))
	if err != nil || !bytes.Contains(src, []byte("BEGIN SOLUTION")) {
		t.Errorf("source notebook: %v", err)
	}
	if cfg, _ := os.ReadFile(filepath.Join(dir, "nbgrader_config.py")); !bytes.Contains(cfg, []byte(`c.Exchange.root = "/srv/exchange"`)) {
		t.Errorf("nbgrader_config.py:\n%s", cfg)
	}
	stderr.Reset()
	if code := dispatch([]string{"course", "--out", dir, "00-tour"}, &stdout, &stderr); code == 0 || !strings.Contains(stderr.String(), "00-tour") {
		t.Errorf("the tour, which has no exercises: exit %d, %s", code, stderr.String())
	}
}
