#!/usr/bin/env bash
# A single-node Slurm on this machine, for trying the job array and for the
# test (ctest -L slurm): munged, slurmctld and slurmd from Debian's slurm-wlm
# and munge, as root, without systemd, everything (key, sockets, state, logs)
# under one directory.
#
#   local-cluster.sh start DIR   start the daemons; prints the line to source:
#                                export SLURM_CONF=DIR/slurm.conf
#   local-cluster.sh stop DIR    stop the daemons this script started in DIR
#
# start exits 0 once the node is idle, 1 (saying why, the logs' tails on
# stderr) when a daemon cannot start or the node does not come up; it stops what
# it started then. Ports: $KG_SLURM_PORT (slurmctld) and the next one (slurmd);
# by default the first pair from 6917 on where nothing listens.
set -uo pipefail

cmd=${1:-}
dir=${2:-}
if [ -z "$cmd" ] || [ -z "$dir" ]; then
    echo "usage: $0 start|stop DIR" >&2
    exit 2
fi
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)

pids() { cat "$dir"/munged.pid "$dir"/slurmctld.pid "$dir"/slurmd.pid 2>/dev/null; }

stop() {
    # only the daemons whose pid files are in DIR, each by its pid
    for f in slurmd slurmctld munged; do
        [ -s "$dir/$f.pid" ] || continue
        pid=$(cat "$dir/$f.pid")
        if kill -0 "$pid" 2>/dev/null; then
            kill "$pid" 2>/dev/null
            for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
            kill -0 "$pid" 2>/dev/null && kill -9 "$pid" 2>/dev/null
        fi
        rm -f "$dir/$f.pid"
    done
}

fail() {
    echo "local-cluster: $*" >&2
    for log in munged.log slurmctld.log slurmd.log; do
        [ -s "$dir/$log" ] && { echo "--- $dir/$log (last lines)" >&2; tail -n 15 "$dir/$log" >&2; }
    done
    stop
    exit 1
}

case "$cmd" in
stop)
    stop
    exit 0
    ;;
start) ;;
*)
    echo "usage: $0 start|stop DIR" >&2
    exit 2
    ;;
esac

[ "$(id -u)" -eq 0 ] || { echo "local-cluster: needs root (the daemons run as root here)" >&2; exit 1; }
for p in munged mungekey slurmctld slurmd sinfo; do
    command -v "$p" >/dev/null || { echo "local-cluster: $p not found (apt-get install slurm-wlm munge)" >&2; exit 1; }
done
stop # what an earlier run in DIR left

listening() { (: >"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
port=${KG_SLURM_PORT:-}
if [ -z "$port" ]; then
    for p in $(seq 6917 2 6999); do
        listening "$p" || listening $((p + 1)) || { port=$p; break; }
    done
    [ -n "$port" ] || fail "no free port pair in 6917-7000"
fi
host=$(hostname -s)
cpus=$(nproc)
mem=$(awk '/MemTotal/ {print int($2 / 1024 * 0.8)}' /proc/meminfo)
mkdir -p "$dir/state" "$dir/spool" "$dir/munge" "$dir/jobs"
chmod 700 "$dir/munge"

# munge: a key of our own, its socket in DIR
[ -s "$dir/munge/munge.key" ] || mungekey --create --keyfile="$dir/munge/munge.key" --bits=1024 >/dev/null 2>&1 ||
    fail "mungekey could not make a key"
chmod 400 "$dir/munge/munge.key"
munged --key-file="$dir/munge/munge.key" --socket="$dir/munge/munge.socket" --pid-file="$dir/munged.pid" \
    --log-file="$dir/munged.log" --seed-file="$dir/munge/munge.seed" --force >/dev/null 2>&1 ||
    fail "munged did not start"

cat >"$dir/slurm.conf" <<CONF
# made by contrib/slurm/local-cluster.sh: one node, this machine
ClusterName=kglocal
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
MinJobAge=300
KillWait=5
Waittime=0
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=local Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
: >"$dir/cgroup.conf"
export SLURM_CONF="$dir/slurm.conf"

alive() { [ -s "$dir/$1.pid" ] && kill -0 "$(cat "$dir/$1.pid")" 2>/dev/null; }
# each daemon forks and writes its pid file once it is set up
slurmctld -i -f "$SLURM_CONF" >/dev/null 2>&1 || fail "slurmctld did not start"
for _ in $(seq 50); do alive slurmctld && break; sleep 0.1; done
slurmd -f "$SLURM_CONF" >/dev/null 2>&1 || fail "slurmd did not start"

# the node idle within 30 s; a daemon that died is said at once
SECONDS=0
state=""
while [ $SECONDS -lt 30 ]; do
    sleep 0.5
    for d in munged slurmctld slurmd; do alive $d || fail "$d stopped (state: ${state:-none})"; done
    state=$(timeout 5 sinfo -h -N -o %T 2>/dev/null | head -1)
    case "$state" in idle*) echo "export SLURM_CONF=$SLURM_CONF"; exit 0 ;; esac
done
fail "the node did not become idle within 30 s (state: ${state:-none})"
