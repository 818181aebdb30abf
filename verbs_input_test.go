package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 12: on every verb, bad input (a missing file, a malformed file, a
// bad flag value) gives exit status 2 and one line on stderr that says the
// verb once and does not repeat itself, and writes nothing.
func TestVerbsRejectBadInputInOneLine(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	missing := filepath.Join(dir, "missing")
	junk := write("junk.txt", "hello\nworld\n")
	badNB := write("bad.ipynb", `{"nbformat": 3, "cells": []}`)
	badJSON := write("bad.json", `{"kind": `)
	out := filepath.Join(dir, "out")
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	good := write("out/bad.ipynb", "good output, kept")

	tests := [][]string{
		{"export", "--out", out, missing + ".ipynb"},
		{"export", "--out", out, badNB},
		{"export", "--out", filepath.Join(dir, "empty")},
		{"install", "--user", "--prefix", dir},
		{"install", "--name"},
		{"kernel", missing},
		{"kernel", junk},
		{"kernel", "--log", "loud", junk},
		{"model", "all_reduce", "--size", "1MB", "-n", "0"},
		{"model", "all_reduce", "--size", "huge", "--bw", "25GB/s"},
		{"run", "--out", out, missing + ".ipynb"},
		{"run", "--out", out, badNB},
		{"run", "--out", out, "-p", "x", badNB},
		{"run", "--out", out, "--timeout", "soon", badNB},
		{"sync", "--chapters", missing, "--notebooks", missing},
		{"sync", "--check", "extra"},
		{"probe", "bandwidth", "--load", missing},
		{"probe", "bandwidth", "--load", badJSON},
		{"probe", "bandwidth", "-b", "0"},
		{"probe", "latency", "--iters", "0"},
		{"probe", "nccl", "--coll", "all_sum"},
		{"probe", "nccl", "--compare", junk},
		{"probe", "nccl-tests", "--load", missing},
		{"probe", "nvbandwidth", "--load", badJSON},
		{"probe", "perftest", "--load", junk},
		{"probe", "rdma-write", "-b", "0"},
		{"probe", "rdma-write", "--server", ":1", "--connect", "a:1"},
		{"probe", "topo", "--fake", "nope"},
		{"probe", "torch", "--per-node", "x"},
		{"probe", "bandwidth", "--save", filepath.Join(out, "bad.ipynb"), "--load", missing},
	}
	for _, f := range parseVerbs {
		tests = append(tests, []string{"parse", f.name, missing}, []string{"parse", f.name, junk}, []string{"parse", f.name, "--json=maybe", junk})
	}
	before := snapshot(t, dir)
	for _, args := range tests {
		code, stdout, stderr := labCLI(t, args...)
		name := strings.Join(args, " ")
		if code != 2 {
			t.Errorf("%s: exit %d, want 2; stderr %q", name, code, stderr)
		}
		if strings.Count(stderr, "\n") != 1 || !strings.HasSuffix(stderr, "\n") {
			t.Errorf("%s: want one line on stderr, got %q", name, stderr)
			continue
		}
		if stdout != "" {
			t.Errorf("%s: stdout %q, want nothing", name, stdout)
		}
		verb := "commlab " + args[0] + ":"
		if args[0] == "parse" || args[0] == "probe" {
			verb = "commlab " + args[0] + " " + args[1] + ":"
		}
		line := strings.TrimSuffix(stderr, "\n")
		if !strings.HasPrefix(line, verb) {
			t.Errorf("%s: %q does not start with %q", name, line, verb)
		}
		seen := map[string]bool{}
		for _, part := range strings.Split(strings.TrimPrefix(line, verb), ": ") {
			part = strings.TrimSpace(part)
			if seen[part] {
				t.Errorf("%s: %q says %q twice", name, line, part)
			}
			seen[part] = true
		}
	}
	if after := snapshot(t, dir); after != before {
		t.Errorf("files changed:\nbefore %s\nafter  %s", before, after)
	}
	if data, _ := os.ReadFile(good); string(data) != "good output, kept" {
		t.Errorf("good output overwritten: %q", data)
	}
}

// snapshot lists every file under dir with its size and content.
func snapshot(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		b.WriteString(p)
		if !d.IsDir() {
			data, _ := os.ReadFile(p)
			b.WriteString("=" + string(data))
		}
		b.WriteString("\n")
		return nil
	})
	return b.String()
}
