package launch_test

import (
	"fmt"

	"github.com/commlab/commlab/probes/launch"
)

// nccl-tests over two nodes of eight GPUs, through the user's srun.
func ExampleCommand() {
	o := launch.Options{Launcher: "srun", Nodes: 2, PerNode: 8}
	cmd, err := launch.Command(o, "all_reduce_perf", []string{"-b", "8", "-e", "8G", "-g", "1"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(launch.ShellJoin(cmd))
	// Output:
	// srun -N 2 --ntasks-per-node 8 --export=ALL all_reduce_perf -b 8 -e 8G -g 1
}
