package doctor

import (
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
)

// This file runs a launch plan's commands (commlab doctor --launcher ...
// --run), where launch.go only builds them.

// HostList reads the nodes named comma-separated ("a, b,c"), blanks
// dropped.
func HostList(list string) []string {
	var hosts []string
	for _, h := range strings.Split(list, ",") {
		if h = strings.TrimSpace(h); h != "" {
			hosts = append(hosts, h)
		}
	}
	return hosts
}

// RunCommands runs the plan's commands one after the other, their output
// and a line naming each into w. A doctor on a node that exits 1 or 2 has
// found warnings or failures, which the follow-up reports: only a command
// that could not run, or exited otherwise, stops the plan.
func (p Plan) RunCommands(w io.Writer) error {
	for _, c := range p.Commands {
		fmt.Fprintf(w, "commlab doctor: running %s\n", ShellLine(c))
		cmd := exec.Command(c[0], c[1:]...)
		cmd.Stdout, cmd.Stderr = w, w
		if err := cmd.Run(); err != nil {
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() > 2 {
				return fmt.Errorf("%s: %w", c[0], err)
			}
		}
	}
	return nil
}
