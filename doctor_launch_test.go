package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Stand-ins for a cluster's launchers, written as small POSIX shell
// scripts: each starts the command it is given once per task, on "nodes"
// that are folders under $STANDIN_ROOT, each with its own name in the
// variable its launcher sets (srun: SLURMD_NODENAME, SLURM_PROCID;
// mpirun: OMPI_COMM_WORLD_RANK, and COMMLAB_NODE_NAME for the name a real
// node's hostname would give). The fake all_reduce_perf writes what every
// rank of nccl-tests writes with NCCL_DEBUG_FILE set (its own NCCL log,
// %h and %p expanded) and, on rank 0, a recorded nccl-tests table.
const standInSrun = `#!/bin/sh
N=1; T=1; LIST=""
while [ $# -gt 0 ]; do
  case "$1" in
    -N) N=$2; shift 2;;
    --ntasks-per-node=*) T=${1#*=}; shift;;
    --nodelist=*) LIST=${1#*=}; shift;;
    -w) LIST=$2; shift 2;;
    --export=*) shift;;
    *) break;;
  esac
done
i=0; pids=""
while [ $i -lt $N ]; do
  node=$(echo "$LIST" | cut -d, -f$((i+1)))
  [ -z "$node" ] && node="node$i"
  mkdir -p "$STANDIN_ROOT/$node"
  j=0
  while [ $j -lt $T ]; do
    ( cd "$STANDIN_ROOT/$node" && SLURMD_NODENAME=$node SLURM_PROCID=$((i*T+j)) SLURM_LOCALID=$j SLURM_NNODES=$N SLURM_NTASKS=$((N*T)) "$@" ) &
    pids="$pids $!"
    j=$((j+1))
  done
  i=$((i+1))
done
rc=0
for p in $pids; do wait $p || rc=$?; done
exit $rc
`

const standInMpirun = `#!/bin/sh
NP=1; PER=1; HOSTS=""; EXPORTS=""
while [ $# -gt 0 ]; do
  case "$1" in
    --hostfile) HOSTS=$(grep -v '^#' "$2" | awk 'NF{print $1}' | paste -sd, -); shift 2;;
    --host) HOSTS=$(echo "$2" | sed 's/:[0-9]*//g'); shift 2;;
    -np) NP=$2; shift 2;;
    --map-by) PER=$(echo "$2" | sed 's/ppr:\([0-9]*\):node/\1/'); shift 2;;
    -x) EXPORTS="$EXPORTS $2"; shift 2;;
    *) break;;
  esac
done
r=0; pids=""
while [ $r -lt $NP ]; do
  node=$(echo "$HOSTS" | cut -d, -f$((r/PER+1)))
  mkdir -p "$STANDIN_ROOT/$node"
  ( cd "$STANDIN_ROOT/$node" && export $EXPORTS && COMMLAB_NODE_NAME=$node OMPI_COMM_WORLD_RANK=$r OMPI_COMM_WORLD_SIZE=$NP OMPI_COMM_WORLD_LOCAL_RANK=$((r%PER)) "$@" ) &
  pids="$pids $!"
  r=$((r+1))
done
rc=0
for p in $pids; do wait $p || rc=$?; done
exit $rc
`

const standInAllReducePerf = `#!/bin/sh
rank=${SLURM_PROCID:-${OMPI_COMM_WORLD_RANK:-0}}
size=${SLURM_NTASKS:-${OMPI_COMM_WORLD_SIZE:-1}}
local=${SLURM_LOCALID:-${OMPI_COMM_WORLD_LOCAL_RANK:-0}}
nodes=${SLURM_NNODES:-$STANDIN_NODES}
node=${SLURMD_NODENAME:-$COMMLAB_NODE_NAME}
if [ -n "$NCCL_DEBUG_FILE" ]; then
  f=$(echo "$NCCL_DEBUG_FILE" | sed "s/%h/$node/; s/%p/$$/")
  {
    echo "$node:$$:$$ [$local] NCCL INFO NCCL version 2.28.9+cuda13.0"
    echo "$node:$$:$$ [$local] NCCL INFO comm 0x7f00 rank $rank nRanks $size nNodes $nodes localRanks $((size/nodes)) localRank $local MNNVL 0"
  } > "$f"
fi
[ "$rank" = 0 ] && cat "$STANDIN_TABLE"
exit 0
`

func writeScript(t *testing.T, dir, name, body string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
}

// The plan across nodes, run end to end on stand-in launchers: every
// node's doctor report lands under the shared folder by node name, the
// sweep's table and every rank's NCCL log are saved there, and the one
// follow-up command reads them all into one report.
func TestDoctorLaunchRoundTrip(t *testing.T) {
	if _, err := os.Stat("/bin/sh"); err != nil {
		t.Skip("no /bin/sh to run the stand-in launchers")
	}
	table, err := filepath.Abs("parse/nccltests/testdata/allreduce_h100_2node_a3mega.txt")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		args  []string
		nodes []string
	}{
		{"srun", []string{"--launcher", "srun", "--nodes", "3", "--per-node", "2"}, []string{"node0", "node1", "node2"}},
		{"mpirun", []string{"--launcher", "mpirun", "--hostfile", "HOSTFILE", "--gpus-per-node", "2"}, []string{"gpu-a", "gpu-b"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			bin, root, shared := t.TempDir(), t.TempDir(), t.TempDir()
			writeScript(t, bin, "srun", standInSrun)
			writeScript(t, bin, "mpirun", standInMpirun)
			writeScript(t, bin, "all_reduce_perf", standInAllReducePerf)
			hostfile := filepath.Join(root, "hostfile")
			if err := os.WriteFile(hostfile, []byte("# two nodes\ngpu-a slots=2\ngpu-b slots=2\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
			t.Setenv(asMainEnv, "1") // the nodes run this test binary as commlab
			t.Setenv("STANDIN_ROOT", root)
			t.Setenv("STANDIN_TABLE", table)
			t.Setenv("STANDIN_NODES", "2")
			t.Setenv("COMMLAB_NODE_NAME", "")
			t.Setenv("SLURMD_NODENAME", "")
			args := []string{"doctor"}
			for _, a := range c.args {
				if a == "HOSTFILE" {
					a = hostfile
				}
				args = append(args, a)
			}
			args = append(args, "--out", shared, "--run", "--json")
			var out, errb bytes.Buffer
			code := dispatch(args, &out, &errb)
			if code > 2 {
				t.Fatalf("exit %d:\n%s", code, errb.String())
			}
			for _, n := range c.nodes {
				if _, err := os.Stat(filepath.Join(shared, "nodes", n, "report.json")); err != nil {
					t.Errorf("node %s left no report: %v\n%s", n, err, errb.String())
				}
			}
			if b, err := os.ReadFile(filepath.Join(shared, "nccl-tests.txt")); err != nil || !strings.Contains(string(b), "# Avg bus bandwidth") {
				t.Errorf("the sweep's table was not saved: %v", err)
			}
			logs, _ := filepath.Glob(filepath.Join(shared, "nccl.*.log"))
			if want := 2 * len(c.nodes); len(logs) != want {
				t.Errorf("%d NCCL logs, want %d (one per rank)", len(logs), want)
			}
			var rep struct {
				Inputs []struct{ What, Source, Note string } `json:"inputs"`
			}
			if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
				t.Fatalf("the follow-up printed no JSON report: %v\n%s", err, out.String())
			}
			saved, err := os.ReadFile(filepath.Join(shared, "report", "report.json"))
			if err != nil || !bytes.Contains(saved, []byte(`"tool": "commlab doctor"`)) {
				t.Errorf("the follow-up left no report in %s: %v", filepath.Join(shared, "report"), err)
			}
			got := map[string]string{}
			for _, in := range rep.Inputs {
				got[in.What] = in.Note
			}
			if n := got["per-node reports"]; !strings.Contains(n, strings.Join(c.nodes, ", ")) {
				t.Errorf("per-node reports: %q, want %v", n, c.nodes)
			}
			if n := got["nccl log"]; !strings.Contains(n, "file(s)") {
				t.Errorf("nccl log: %q", n)
			}
			if n := got["nccl-tests"]; !strings.Contains(n, "all_reduce") {
				t.Errorf("nccl-tests: %q", n)
			}
		})
	}
}
