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
	if code := dispatch([]string{"course", "--out", dir, "99-none"}, &stdout, &stderr); code == 0 || !strings.Contains(stderr.String(), "99-none") {
		t.Errorf("a chapter without solutions: exit %d, %s", code, stderr.String())
	}
	stderr.Reset()
	if code := dispatch([]string{"course", "--out", dir, "--solutions", t.TempDir(), "02-interconnect"}, &stdout, &stderr); code == 0 || !strings.Contains(stderr.String(), "no solutions for this chapter") {
		t.Errorf("a trainer folder without the chapter: exit %d, %s", code, stderr.String())
	}
}
