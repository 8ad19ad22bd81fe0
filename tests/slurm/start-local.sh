#!/bin/sh
# start-local.sh [--install] [--scheduler fifo|backfill|multifactor] [--stop] — bring up a real single-node Slurm with accounting on
# this machine (Debian slurm-wlm, slurmdbd, munge, mariadb-server: munged, mariadbd, slurmdbd,
# slurmctld, slurmd) for tests/slurm.bats, tests/slurm-import.bats and for trying
# SIM_LAUNCHER=slurm (docs/studies.md). As root. Idempotent: a second run finds the cluster up
# and only waits for the node to be idle.
#   --install  apt-get install the packages first when they are missing
#   --stop     stop the daemons this script started (their pids are in STATE below) and exit
#   --scheduler fifo (the default: the strict FIFO below), backfill (sched/backfill with
#              bf_interval=2 and bf_resolution=5, priority/basic) or multifactor (that backfill
#              and priority/multifactor, QOS weight 1000): the live comparison of
#              tests/slurm/backfill-live.sh (docs/slurm-import.md section 8). A change of
#              scheduler restarts slurmctld and slurmd; run it again without it to go back.
# The cluster: one node with 64 CPUs (whatever the machine has: SlurmdParameters=config_overrides)
# and 8 count-only GPUs (Gres=gpu:tesla:8, empty files instead of devices); strict FIFO (sched/builtin, no
# backfill); accounting in MariaDB through slurmdbd, accounts acct-a and acct-b, QOS normal
# and high, and QOS scavenger that high preempts by requeue (PreemptType=preempt/qos).
# The configs are written to /etc/slurm/, marked as ours; a config this script did not
# write is left alone and the script stops (a real cluster's is not ours to change).
# Daemon logs: /var/log/slurm/. State and pids: $STATE (default /var/lib/schednav-slurm).
set -eu
STATE=${SCHEDNAV_SLURM_STATE:-/var/lib/schednav-slurm}
CONF=/etc/slurm/slurm.conf
MARK="# written by SchedNav tests/slurm/start-local.sh"
say() { echo "start-local: $*" >&2; }
die() { say "$*"; exit 1; }

install=no
scheduler=fifo
while [ $# -gt 0 ]; do
case "$1" in
--install) install=yes ;;
--scheduler)
	[ $# -ge 2 ] || die "--scheduler needs fifo, backfill or multifactor"
	case "$2" in fifo|backfill|multifactor) scheduler=$2 ;; *) die "--scheduler: '$2' is not fifo, backfill or multifactor" ;; esac
	shift ;;
--stop)
	for d in slurmd slurmctld slurmdbd mariadbd munged; do
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
*) die "usage: start-local.sh [--install] [--scheduler fifo|backfill|multifactor] [--stop]" ;;
esac
shift
done
[ "$(id -u)" -eq 0 ] || die "run as root (it starts system daemons)"

if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null || ! command -v munged >/dev/null ||
	! command -v slurmdbd >/dev/null || ! command -v mariadbd >/dev/null; then
	[ $install = yes ] || die "slurm-wlm, slurmdbd, munge and mariadb-server are not installed: run with --install (apt-get)"
	say "installing slurm-wlm, slurmdbd, munge and mariadb-server"
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends slurm-wlm slurmdbd munge mariadb-server mariadb-client >/dev/null
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

# --- MariaDB and slurmdbd --------------------------------------------------------------------
# running NAME: the pid NAME recorded is a live NAME (the daemon removes its pid file as it
# stops, so the file may go between two reads: read it once, quietly)
running() {
	_pid=$(cat "$STATE/$1.pid" 2>/dev/null) || return 1
	[ -n "$_pid" ] && [ "$(cat "/proc/$_pid/comm" 2>/dev/null)" = "$1" ]
}
DBDCONF=/etc/slurm/slurmdbd.conf
for f in "$CONF" "$DBDCONF" /etc/slurm/gres.conf; do
	if [ -f "$f" ] && ! head -n 1 "$f" | grep -qxF "$MARK"; then
		die "$f exists and was not written by this script: not touching it (stop here, or use that cluster)"
	fi
done
mkdir -p /etc/slurm /var/log/slurm
if ! mariadb-admin ping >/dev/null 2>&1; then
	say "starting mariadbd"
	install -d -o mysql -g mysql -m 0755 /run/mysqld
	[ -d /var/lib/mysql/mysql ] || mariadb-install-db --user=mysql --datadir=/var/lib/mysql >/dev/null
	touch /var/log/slurm/mariadbd.log && chown mysql:mysql /var/log/slurm/mariadbd.log
	setsid /usr/sbin/mariadbd --user=mysql --pid-file=/run/mysqld/mariadbd.pid --log-error=/var/log/slurm/mariadbd.log \
		</dev/null >/dev/null 2>&1 &
	for _ in $(seq 150); do mariadb-admin ping >/dev/null 2>&1 && break; sleep 0.2; done
	mariadb-admin ping >/dev/null 2>&1 || die "mariadbd did not start (see /var/log/slurm/mariadbd.log)"
	cp /run/mysqld/mariadbd.pid "$STATE/mariadbd.pid"
fi
# the database account slurmdbd uses: local socket only, a password kept in $STATE
[ -s "$STATE/db.pass" ] || { od -An -tx1 -N16 /dev/urandom | tr -d ' \n' > "$STATE/db.pass"; chmod 600 "$STATE/db.pass"; }
dbpass=$(cat "$STATE/db.pass")
mariadb -e "CREATE USER IF NOT EXISTS 'slurm'@'localhost'; ALTER USER 'slurm'@'localhost' IDENTIFIED BY '$dbpass';
	GRANT ALL ON slurm_acct_db.* TO 'slurm'@'localhost';" || die "could not create the database user"
umask 077
cat > "$DBDCONF.tmp" <<DBD
$MARK
AuthType=auth/munge
DbdHost=localhost
SlurmUser=root
PidFile=$STATE/slurmdbd.pid
LogFile=/var/log/slurm/slurmdbd.log
StorageType=accounting_storage/mysql
StorageHost=localhost
StorageUser=slurm
StoragePass=$dbpass
StorageLoc=slurm_acct_db
DBD
umask 022
if ! cmp -s "$DBDCONF.tmp" "$DBDCONF"; then mv "$DBDCONF.tmp" "$DBDCONF"; else rm -f "$DBDCONF.tmp"; fi
if ! running slurmdbd; then
	say "starting slurmdbd"
	slurmdbd
fi

# --- the config ------------------------------------------------------------------------------
node=$(hostname -s)
cpus=64
mkdir -p /var/spool/slurmd "$STATE/slurmctld"
# Slurm's gres/gpu plugin drops a GPU line without File= ("Removing file-less GPU"), so the
# eight GPUs name eight empty regular files: no device, no driver, nothing opens them (no
# cgroups here); Slurm only counts and hands them out.
for i in 0 1 2 3 4 5 6 7; do : > "$STATE/gpu$i"; done
printf '%s\nNodeName=%s Name=gpu Type=tesla File=%s/gpu[0-7]\n' "$MARK" "$node" "$STATE" > /etc/slurm/gres.conf.tmp
if ! cmp -s /etc/slurm/gres.conf.tmp /etc/slurm/gres.conf; then mv /etc/slurm/gres.conf.tmp /etc/slurm/gres.conf; else rm -f /etc/slurm/gres.conf.tmp; fi
# The scheduler: the default (fifo) writes exactly the lines it always did. backfill and
# multifactor are the live comparison's (docs/slurm-import.md section 8): their parameters are
# recorded there and in configs/policies/slurm-live-*.json, which replay them.
case $scheduler in
fifo)
	sched_says="Strict FIFO: sched/builtin starts jobs in submit order and nothing passes a
# job that cannot start"
	sched_conf="SchedulerType=sched/builtin
PriorityType=priority/basic" ;;
backfill)
	sched_says="Backfill: sched/backfill (bf_interval=2, bf_resolution=5), priority/basic
# (submit order)"
	sched_conf="SchedulerType=sched/backfill
SchedulerParameters=bf_interval=2,bf_resolution=5
PriorityType=priority/basic" ;;
multifactor)
	sched_says="Backfill: sched/backfill (bf_interval=2, bf_resolution=5), priority/multifactor
# with only the QOS factor (PriorityWeightQOS=1000; QOS high 100, normal 0)"
	sched_conf="SchedulerType=sched/backfill
SchedulerParameters=bf_interval=2,bf_resolution=5
PriorityType=priority/multifactor
PriorityWeightQOS=1000
PriorityWeightAge=0
PriorityWeightFairshare=0
PriorityWeightJobSize=0
PriorityWeightPartition=0" ;;
esac
cat > "$CONF.tmp" <<CONF
$MARK
# A single-node test cluster: slurmctld and slurmd on this host, munge authentication,
# accounting through slurmdbd, no cgroups (containers), the node's CPUs and count-only GPUs as
# the config says. $sched_says; QOS high preempts QOS scavenger by requeueing it.
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
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=localhost
AccountingStorageTRES=gres/gpu,gres/gpu:tesla
AccountingStorageEnforce=associations,limits,qos
JobCompType=jobcomp/none
GresTypes=gpu
$sched_conf
PreemptType=preempt/qos
PreemptMode=REQUEUE
JobRequeue=1
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
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus Gres=gpu:tesla:8 State=UNKNOWN
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

# --- the accounting: cluster, accounts, the user, QOS (sacctmgr; each step idempotent) ---------
for _ in $(seq 150); do sacctmgr -n list cluster >/dev/null 2>&1 && break; sleep 0.2; done
sacctmgr -n list cluster >/dev/null 2>&1 || die "slurmdbd did not answer (see /var/log/slurm/slurmdbd.log)"
sacctmgr_q() { sacctmgr -i -Q "$@" >/dev/null 2>&1 || true; }
sacctmgr -n -P list cluster format=cluster | grep -qx schednav-local || sacctmgr_q add cluster schednav-local
sacctmgr_q add qos high Priority=100
sacctmgr_q add qos scavenger Priority=0
sacctmgr_q modify qos high set Preempt=scavenger PreemptMode=requeue
sacctmgr_q modify qos scavenger set PreemptMode=requeue
for a in acct-a acct-b; do sacctmgr_q add account "$a" Cluster=schednav-local; done
sacctmgr_q add user root Account=acct-a,acct-b DefaultAccount=acct-a Cluster=schednav-local
sacctmgr_q modify user root set QOS=normal,high,scavenger DefaultQOS=normal
[ "$(sacctmgr -n -P list qos format=name | grep -cxE 'normal|high|scavenger')" -eq 3 ] || die "the QOS are not in the database"

# --- the daemons -----------------------------------------------------------------------------
if running slurmctld && [ $changed = yes ]; then
	# a new plugin (scheduler, accounting, GRES) needs a restart, not a reconfigure
	say "restarting slurmctld and slurmd for the new config"
	for d in slurmd slurmctld; do ! running "$d" || kill "$_pid"; done
	for _ in $(seq 100); do running slurmctld || running slurmd || break; sleep 0.1; done
fi
if ! running slurmctld; then say "starting slurmctld"; slurmctld; fi
if ! running slurmd; then say "starting slurmd"; slurmd; fi

# --- wait for an idle node, then one job ------------------------------------------------------
state=
for _ in $(seq 60); do
	state=$(sinfo -h -n "$node" -o %t 2>/dev/null | head -n 1 || true)
	case $state in
	idle|mix|alloc) break ;;
	down*|drain*|drng*|inval*) scontrol update nodename="$node" state=resume 2>/dev/null || true ;;
	esac
	sleep 0.5
done
case $state in
idle|mix|alloc) ;;
*) die "node '$node' is '$state', not idle (see /var/log/slurm/)" ;;
esac
out=$(srun --quiet -n1 -t 1 echo slurm-ok) || die "a test job failed"
[ "$out" = slurm-ok ] || die "a test job printed '$out'"
say "Slurm is up: node $node, $cpus CPUs, 8 GPUs (gpu:tesla), partition debug, accounting in slurmdbd"
