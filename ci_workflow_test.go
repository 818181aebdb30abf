package main

import (
	"os"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// The workflow users copy (ci/notebooks.yml) calls commlab verbs and flags
// that exist: each of its commlab command lines parses.
func TestRunCLIWorkflowUsesRealFlags(t *testing.T) {
	data, err := os.ReadFile("ci/notebooks.yml")
	if err != nil {
		t.Fatal(err)
	}
	var wf struct {
		Jobs map[string]struct {
			Steps []struct {
				Run string `yaml:"run"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(data, &wf); err != nil {
		t.Fatalf("ci/notebooks.yml: %v", err)
	}
	var called []string
	for _, job := range wf.Jobs {
		for _, step := range job.Steps {
			for _, line := range strings.Split(step.Run, "\n") {
				fields := strings.Fields(line)
				if len(fields) < 2 || fields[0] != "commlab" {
					continue
				}
				called = append(called, fields[1])
				if fields[1] == "version" {
					continue
				}
				// Ask for help after the same flags: a bad flag exits 2
				// before -h is seen.
				var args []string
				for _, f := range fields[1:] {
					if !strings.HasPrefix(f, "$") && !strings.Contains(f, "*") {
						args = append(args, f)
					}
				}
				if findVerb(verbs, args[0]) == nil {
					t.Errorf("workflow calls unknown verb %q", args[0])
					continue
				}
				code, _, stderr := labCLI(t, append(args, "-h")...)
				if code != 0 {
					t.Errorf("workflow line %q: flags rejected (exit %d): %s", line, code, stderr)
				}
			}
		}
	}
	if strings.Join(called, " ") != "version sync run" {
		t.Errorf("workflow verbs = %v, want version, sync, run", called)
	}
}
