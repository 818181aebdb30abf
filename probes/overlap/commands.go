package overlap

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/commlab/commlab/probes/launch"
)

// WriteCommands prints the commands a run of cfg would start, one per
// invocation (Steps, or one for cfg.What), each after its environment,
// its output folder named DIR (commlab probe overlap --dry-run).
func (cfg Config) WriteCommands(w io.Writer) error {
	steps := Steps
	if cfg.What != "" {
		steps = []Step{{Name: ".", Args: []string{"--what", cfg.What}}}
	}
	for _, st := range steps {
		args := append(append([]string{"--out", filepath.Join("DIR", st.Name)}, st.Args...), cfg.Args...)
		cmdline, err := launch.OverlapBench.Command(cfg.Launch, launch.OverlapBench.Name, args)
		if err != nil {
			return err
		}
		fmt.Fprintln(w, strings.TrimSpace(strings.Join(st.Env, " ")+" "+launch.ShellJoin(cmdline)))
	}
	return nil
}
