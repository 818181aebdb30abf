#!/usr/bin/env bash
# A Slurm cluster of one machine, to try the hub on a scheduler and the
# doctor's multi-node plan without a cluster: munged, slurmctld and slurmd
# from Debian 12 (apt-get install munge slurmctld slurmd slurm-client),
# a controller and its node on loopback, every file (key, configuration,
# state, logs, pids) under DIR, nothing in /etc.
#
#   ci/slurm-local.sh start DIR [NODES]  # write DIR/slurm.conf, start the daemons, wait for the node(s)
#   export SLURM_CONF=DIR/slurm.conf     # then sbatch, srun, squeue, scancel talk to it
#   ci/slurm-local.sh stop DIR           # stop the daemons it started
#
# The partition is "lab" (Default, no time limit); the node(s) claim 8 CPUs
# whatever the machine has (SlurmdParameters=config_overrides), so two
# learners' servers and a doctor run fit on a 2-core machine. NODES > 1
# names nodes node1..nodeN, each its own slurmd on its own port.
# ci/slurm_test.go runs it in a temporary DIR; the README's trainer recipe
# uses it to try the hub locally.
set -euo pipefail

usage() { echo "usage: $0 start DIR [NODES] | stop DIR" >&2; exit 2; }
[ $# -ge 2 ] || usage
action=$1
dir=$(realpath -m "$2")
nodes=${3:-1}

stop() {
	# The jobs first (their steps outlive slurmd), waited for 60 s at most,
	# then each daemon by the pid it was started with, slurmd first.
	if [ -e "$dir/slurm.conf" ] && [ -e "$dir/slurmctld.pid" ]; then
		export SLURM_CONF="$dir/slurm.conf"
		scancel --full --quiet --user="$(id -un)" 2>/dev/null || true
		for _ in $(seq 600); do
			[ -z "$(squeue -h -o %i 2>/dev/null)" ] && break
			sleep 0.1
		done
	fi
	for name in slurmd slurmctld munged; do
		for pidfile in "$dir"/"$name"*.pid; do
			[ -e "$pidfile" ] || continue
			pid=$(cat "$pidfile")
			if kill -0 "$pid" 2>/dev/null; then
				kill "$pid"
				for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
				kill -0 "$pid" 2>/dev/null && kill -9 "$pid"
			fi
			rm -f "$pidfile"
		done
	done
}

freeport() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

case $action in
stop) stop; exit 0 ;;
start) ;;
*) usage ;;
esac

for tool in munged mungekey slurmctld slurmd sinfo; do
	command -v "$tool" >/dev/null || { echo "$0: no $tool: apt-get install munge slurmctld slurmd slurm-client" >&2; exit 1; }
done
mkdir -p "$dir"/state "$dir"/log "$dir/spool-$(hostname -s)"
for i in $(seq "$nodes"); do mkdir -p "$dir/spool-node$i"; done
chmod 700 "$dir"
user=$(id -un)

# munge: a key of this cluster's own, its socket in DIR.
[ -e "$dir/munge.key" ] || mungekey --create --keyfile="$dir/munge.key"
chmod 600 "$dir/munge.key"
munged --force --socket="$dir/munge.sock" --key-file="$dir/munge.key" --pid-file="$dir/munged.pid" \
	--log-file="$dir/log/munged.log" --seed-file="$dir/munged.seed"

host=$(hostname -s)
{
	echo "ClusterName=commlab"
	echo "SlurmctldHost=$host(127.0.0.1)"
	echo "SlurmctldPort=$(freeport)"
	echo "SlurmUser=$user"
	echo "SlurmdUser=$user"
	echo "AuthType=auth/munge"
	echo "CredType=cred/munge"
	echo "AuthInfo=socket=$dir/munge.sock"
	echo "StateSaveLocation=$dir/state"
	echo "SlurmdSpoolDir=$dir/spool-%n"
	echo "SlurmctldPidFile=$dir/slurmctld.pid"
	echo "SlurmdPidFile=$dir/slurmd-%n.pid"
	echo "SlurmctldLogFile=$dir/log/slurmctld.log"
	echo "SlurmdLogFile=$dir/log/slurmd-%n.log"
	echo "ProctrackType=proctrack/linuxproc"
	echo "TaskPlugin=task/none"
	echo "JobAcctGatherType=jobacct_gather/none"
	echo "AccountingStorageType=accounting_storage/none"
	echo "MpiDefault=none"
	echo "ReturnToService=2"
	echo "SchedulerType=sched/backfill"
	echo "SelectType=select/cons_tres"
	echo "SelectTypeParameters=CR_CPU"
	echo "SlurmdParameters=config_overrides"
	echo "SlurmdTimeout=30"
	echo "InactiveLimit=0"
	echo "KillWait=5"
	if [ "$nodes" -eq 1 ]; then
		echo "SlurmdPort=$(freeport)"
		echo "NodeName=$host NodeAddr=127.0.0.1 CPUs=8 State=UNKNOWN"
	else
		for i in $(seq "$nodes"); do
			echo "NodeName=node$i NodeHostname=$host NodeAddr=127.0.0.1 Port=$(freeport) CPUs=8 State=UNKNOWN"
		done
	fi
	echo "PartitionName=lab Nodes=ALL Default=YES MaxTime=INFINITE State=UP"
} >"$dir/slurm.conf"
export SLURM_CONF="$dir/slurm.conf"

slurmctld -f "$SLURM_CONF" -i
if [ "$nodes" -eq 1 ]; then
	slurmd -f "$SLURM_CONF"
else
	for i in $(seq "$nodes"); do slurmd -f "$SLURM_CONF" -N "node$i"; done
fi

# Wait (60 s at most) for every node to be idle.
for _ in $(seq 600); do
	states=$(sinfo -h -N -o '%T' 2>/dev/null | sort -u | tr '\n' ' ')
	[ "$states" = "idle " ] && { echo "slurm: $nodes node(s) idle; export SLURM_CONF=$SLURM_CONF"; exit 0; }
	sleep 0.1
done
echo "$0: the node(s) did not come up within 60 s (sinfo: ${states:-no answer}); logs in $dir/log" >&2
exit 1
