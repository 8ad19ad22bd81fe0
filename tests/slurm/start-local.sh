#!/bin/sh
# start-local.sh [--install] [--stop] — bring up a real single-node Slurm on this machine
# (Debian slurm-wlm + munge: munged, slurmctld, slurmd) for tests/slurm.bats and for trying
# SIM_LAUNCHER=slurm (docs/studies.md). As root. Idempotent: a second run finds the cluster up
# and only waits for the node to be idle.
#   --install  apt-get install slurm-wlm and munge first when they are missing
#   --stop     stop the daemons this script started (their pids are in STATE below) and exit
# The config is written to /etc/slurm/slurm.conf, marked as ours; a config this script did not
# write is left alone and the script stops (a real cluster's is not ours to change).
# Daemon logs: /var/log/slurm/. State and pids: $STATE (default /var/lib/schednav-slurm).
set -eu
STATE=${SCHEDNAV_SLURM_STATE:-/var/lib/schednav-slurm}
CONF=/etc/slurm/slurm.conf
MARK="# written by SchedNav tests/slurm/start-local.sh"
say() { echo "start-local: $*" >&2; }
die() { say "$*"; exit 1; }

install=no
case "${1:-}" in
--install) install=yes ;;
--stop)
	for d in slurmd slurmctld munged; do
		if [ -f "$STATE/$d.pid" ]; then
			pid=$(cat "$STATE/$d.pid")
			# only a process of that name with the pid we recorded
			if [ -r "/proc/$pid/comm" ] && [ "$(cat "/proc/$pid/comm")" = "$d" ]; then
				kill "$pid" && say "stopped $d ($pid)"
			fi
			rm -f "$STATE/$d.pid"
		fi
	done
	exit 0 ;;
"") ;;
*) die "usage: start-local.sh [--install] [--stop]" ;;
esac
[ "$(id -u)" -eq 0 ] || die "run as root (it starts system daemons)"

if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null || ! command -v munged >/dev/null; then
	[ $install = yes ] || die "slurm-wlm and munge are not installed: run with --install (apt-get)"
	say "installing slurm-wlm and munge"
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends slurm-wlm munge >/dev/null
fi
mkdir -p "$STATE"

# --- munge: a key, the daemon ---------------------------------------------------------------
if [ ! -s /etc/munge/munge.key ]; then
	say "creating /etc/munge/munge.key"
	mkdir -p /etc/munge
	dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 2>/dev/null
fi
chown munge:munge /etc/munge/munge.key && chmod 400 /etc/munge/munge.key
install -d -o munge -g munge -m 0755 /run/munge
install -d -o munge -g munge -m 0700 /var/lib/munge /var/log/munge
if ! munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
	say "starting munged"
	runuser -u munge -- /usr/sbin/munged
	for _ in $(seq 50); do munge -n 2>/dev/null | unmunge >/dev/null 2>&1 && break; sleep 0.1; done
	munge -n | unmunge >/dev/null || die "munged did not start (see /var/log/munge/munged.log)"
	pgrep -u munge -x munged | head -n 1 > "$STATE/munged.pid"
fi

# --- the config ------------------------------------------------------------------------------
node=$(hostname -s)
cpus=$(nproc)
if [ -f "$CONF" ] && ! head -n 1 "$CONF" | grep -qxF "$MARK"; then
	die "$CONF exists and was not written by this script: not touching it (stop here, or use that cluster)"
fi
mkdir -p /etc/slurm /var/spool/slurmd "$STATE/slurmctld" /var/log/slurm
cat > "$CONF.tmp" <<CONF
$MARK
# A single-node test cluster: slurmctld and slurmd on this host, munge authentication, no
# accounting, no cgroups (containers), the node's CPUs as the config says.
ClusterName=schednav-local
SlurmctldHost=$node(127.0.0.1)
AuthType=auth/munge
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$STATE/slurmctld
SlurmdSpoolDir=/var/spool/slurmd
SlurmctldPidFile=$STATE/slurmctld.pid
SlurmdPidFile=$STATE/slurmd.pid
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SlurmdParameters=config_overrides
MpiDefault=none
ReturnToService=2
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
MinJobAge=30
KillWait=5
Waittime=0
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
if ! cmp -s "$CONF.tmp" "$CONF"; then
	mv "$CONF.tmp" "$CONF"
	say "wrote $CONF ($node, $cpus CPUs)"
	changed=yes
else
	rm -f "$CONF.tmp"
	changed=no
fi

# --- the daemons -----------------------------------------------------------------------------
running() { [ -f "$STATE/$1.pid" ] && [ -r "/proc/$(cat "$STATE/$1.pid")/comm" ] && [ "$(cat "/proc/$(cat "$STATE/$1.pid")/comm")" = "$1" ]; }
if running slurmctld && [ $changed = yes ]; then scontrol reconfigure; fi
if ! running slurmctld; then say "starting slurmctld"; slurmctld; fi
if ! running slurmd; then say "starting slurmd"; slurmd; fi

# --- wait for an idle node, then one job ------------------------------------------------------
state=
for _ in $(seq 60); do
	state=$(sinfo -h -n "$node" -o %t 2>/dev/null | head -n 1 || true)
	case $state in
	idle|mix|alloc) break ;;
	down*|drain*|drng*) scontrol update nodename="$node" state=resume 2>/dev/null || true ;;
	esac
	sleep 0.5
done
case $state in
idle|mix|alloc) ;;
*) die "node '$node' is '$state', not idle (see /var/log/slurm/)" ;;
esac
out=$(srun --quiet -n1 -t 1 echo slurm-ok) || die "a test job failed"
[ "$out" = slurm-ok ] || die "a test job printed '$out'"
say "Slurm is up: node $node, $cpus CPUs, partition debug"
