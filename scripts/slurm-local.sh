#!/usr/bin/env bash
# A single-node Slurm on this machine, for tests and trials of `snakemake --slurm`: munged,
# slurmctld and slurmd started directly (no systemd), all state, logs and the configuration under
# STATE_DIR, on the loopback interface. Debian packages: slurm-wlm, munge (scripts/install-deps.sh).
#
#   scripts/slurm-local.sh start STATE_DIR   starts the daemons, waits until the node is idle, and
#                                            prints the environment to use it (SLURM_CONF=...)
#   scripts/slurm-local.sh stop STATE_DIR    stops them by the PIDs recorded at start
#
#   SLURM_PORT  first of the two ports slurmctld and slurmd listen on (default: two free ports)
set -euo pipefail

usage() { echo "usage: scripts/slurm-local.sh start|stop STATE_DIR" >&2; exit 2; }
[[ $# == 2 ]] || usage
action=$1
dir=$2
port=${SLURM_PORT:-}
partition=dtb

stop() {
  local name pid
  for name in slurmd slurmctld munged; do
    [[ -f "$dir/$name.pid" ]] || continue
    pid=$(cat "$dir/$name.pid")
    if kill "$pid" 2>/dev/null; then
      for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      kill -9 "$pid" 2>/dev/null || true
    fi
    rm -f "$dir/$name.pid"
  done
}

start() {
  for tool in munged slurmctld slurmd sinfo; do
    command -v "$tool" >/dev/null || { echo "slurm-local: $tool not found (scripts/install-deps.sh installs slurm-wlm and munge)" >&2; exit 2; }
  done
  mkdir -p "$dir"/{munge,state,spool}
  dir=$(cd "$dir" && pwd)
  chmod 700 "$dir/munge"
  # A key of our own: the daemons here trust only each other.
  head -c 1024 /dev/urandom >"$dir/munge/munge.key"
  chmod 400 "$dir/munge/munge.key"
  munged --force --key-file="$dir/munge/munge.key" --socket="$dir/munge/munge.socket" \
    --pid-file="$dir/munge/munged.pid" --log-file="$dir/munge/munged.log" --seed-file="$dir/munge/munged.seed"
  for _ in $(seq 50); do [[ -S "$dir/munge/munge.socket" && -s "$dir/munge/munged.pid" ]] && break; sleep 0.1; done
  cp "$dir/munge/munged.pid" "$dir/munged.pid"

  local host node ctld_port slurmd_port
  if [[ -n "$port" ]]; then
    ctld_port=$port slurmd_port=$((port + 1))
  else
    read -r ctld_port slurmd_port < <(/usr/bin/python3 -c '
import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*(x.getsockname()[1] for x in s))')
  fi
  host=$(hostname -s)
  # The node as slurmd sees it (CPUs, sockets, memory), so that the configuration matches it.
  node=$(slurmd -C | head -n 1 | sed -e "s/^NodeName=[^ ]*/NodeName=$host NodeAddr=127.0.0.1/" -e 's/ UpTime=.*//')
  cat >"$dir/slurm.conf" <<EOF
ClusterName=dtblocal
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.socket
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
ReturnToService=2
SchedulerType=sched/backfill
SelectType=select/cons_tres
# Without DefMemPerCPU every job asks for the whole node's memory and jobs run one at a time.
SelectTypeParameters=CR_Core_Memory
DefMemPerCPU=512
JobCompType=jobcomp/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
$node State=UNKNOWN
PartitionName=$partition Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
  export SLURM_CONF=$dir/slurm.conf
  slurmctld -i
  slurmd
  for _ in $(seq 300); do
    if [[ "$(sinfo -h -o %t -p "$partition" 2>/dev/null)" == idle ]]; then
      echo "export SLURM_CONF=$dir/slurm.conf  # partition: $partition"
      return 0
    fi
    sleep 0.1
  done
  echo "slurm-local: the node did not come up; logs in $dir" >&2
  tail -n 20 "$dir/slurmctld.log" "$dir/slurmd.log" >&2 || true
  stop
  exit 1
}

case $action in
  start) start ;;
  stop) stop ;;
  *) usage ;;
esac
