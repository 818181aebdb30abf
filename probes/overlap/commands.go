package overlap

import (
	"fmt"
	"io"
	"strings"

	"github.com/commlab/commlab/probes/launch"
)

// WriteCommands prints the commands a run of cfg would start, one per
// invocation (Invocations, or one for cfg.What), each after its
// environment, its output folder named DIR (commlab probe overlap
// --dry-run).
func (cfg Config) WriteCommands(w io.Writer) error {
	invs := Invocations
	if cfg.What != "" {
		invs = []Invocation{{Steps: []Step{{Name: ".", Args: []string{"--what", cfg.What}}}}}
	}
	for _, inv := range invs {
		cmdline, err := launch.OverlapBench.Command(cfg.Launch, launch.OverlapBench.Name, inv.args("DIR", cfg.Args))
		if err != nil {
			return err
		}
		fmt.Fprintln(w, strings.TrimSpace(strings.Join(inv.Env, " ")+" "+launch.ShellJoin(cmdline)))
	}
	return nil
}
