#!/bin/sh
# A throwaway single-node Slurm cluster on loopback for tests/slurm/run_test.sh: its own munged
# (own key and socket), slurmctld and slurmd, all state, logs and the slurm.conf under DIR, so
# nothing in /etc, /run or /var is touched and a system Slurm or munge keeps running.
# Usage: cluster.sh start DIR | cluster.sh stop DIR (as root: slurmd starts jobs as their user).
# After start, commands find the cluster through SLURM_CONF=DIR/slurm.conf.
set -eu
action=$1
dir=$(realpath -m "$2")

stop_pidfile() {
  [ -f "$1" ] || return 0
  pid=$(cat "$1")
  kill "$pid" 2>/dev/null || true
  # Up to 10 s for a clean exit (slurmctld saves its state), then SIGKILL.
  i=0
  while kill -0 "$pid" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
  kill -9 "$pid" 2>/dev/null || true
  rm -f "$1"
}

case $action in
stop)
  stop_pidfile "$dir/slurmd.pid"
  stop_pidfile "$dir/slurmctld.pid"
  stop_pidfile "$dir/munged.pid"
  exit 0
  ;;
start) ;;
*) echo "usage: $0 start|stop DIR" >&2; exit 1 ;;
esac

if [ "$(id -u)" != 0 ]; then
  echo "$0: needs root (slurmd runs jobs as the submitting user); run it as root, as CI does" >&2
  exit 1
fi
# Ports other than Slurm's defaults (6817, 6818), so a system Slurm on this machine is no obstacle.
ctld_port=${CKPTSIM_SLURMCTLD_PORT:-16817}
slurmd_port=${CKPTSIM_SLURMD_PORT:-16818}
host=$(hostname -s)
cpus=$(nproc)

rm -rf "$dir"
mkdir -p "$dir/state" "$dir/spool" "$dir/munge"
# munged refuses a key or socket directory that others can write or read.
chmod 700 "$dir/munge"
mungekey --create --keyfile="$dir/munge/munge.key"
munged --socket="$dir/munge/munge.socket" --key-file="$dir/munge/munge.key" \
  --pid-file="$dir/munged.pid" --log-file="$dir/munge/munged.log" \
  --seed-file="$dir/munge/munged.seed" --force

cat > "$dir/slurm.conf" <<CONF
ClusterName=ckptsim-test
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.socket
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
# No cgroups: the test machine may be a container without a writable cgroup tree.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
SwitchType=switch/none
ReturnToService=2
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=local Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$dir/slurm.conf"
slurmctld -f "$SLURM_CONF"
slurmd -f "$SLURM_CONF"

# Ready when the node is idle (up to 30 s).
i=0
until sinfo -h -n "$host" -o %T 2>/dev/null | grep -qx idle; do
  i=$((i + 1))
  if [ $i -gt 60 ]; then
    echo "$0: the node did not become idle; logs in $dir:" >&2
    tail -n 20 "$dir/slurmctld.log" "$dir/slurmd.log" "$dir/munge/munged.log" >&2 || true
    exit 1
  fi
  sleep 0.5
done
echo "slurm: node $host idle ($cpus CPUs), SLURM_CONF=$SLURM_CONF"
