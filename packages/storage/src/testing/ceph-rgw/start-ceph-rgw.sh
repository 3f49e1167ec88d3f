#!/usr/bin/env bash
# The S3 server of the storage tests and benchmarks: a single-host Ceph cluster (1 mon, 1 OSD,
# optional mgr) with the RADOS Gateway (radosgw, beast frontend) as an S3-compatible endpoint on
# 127.0.0.1. Debian 12 packages only (16.2.x): `.ci/run` installs them; started once per test run
# by packages/storage/src/testing/s3-test-store.ts.
#
# Environment (all optional):
#   S3_PORT            RGW HTTP port                         (default 4800)
#   S3_MON_PORT        ceph-mon msgr2 port                   (default S3_PORT+10)
#   S3_MS_PORT_MIN/MAX port range for OSD/mgr messengers     (default S3_PORT+20 .. S3_PORT+49)
#   S3_DATA_DIR        cluster data, logs, pid files         (default /tmp/ceph-s3-$S3_PORT)
#   S3_OBJECTSTORE     bluestore (sparse file, persistent) | memstore (RAM only) (default bluestore)
#   S3_STORE_BYTES     memstore capacity / bluestore file size (default 4 GiB)
#   S3_ACCESS_KEY_ID / S3_SECRET_ACCESS_KEY  key pair to create (defaults below)
#   S3_BUCKET          bucket to create                      (default test-bucket)
#   S3_REGION          SigV4 signing region (RGW accepts any) (default us-east-1)
#   S3_WITH_MGR        1 = also install/start ceph-mgr       (default 0)
#   S3_SKIP_INSTALL    1 = do not run apt-get                (default 0)
#   S3_FRESH           1 = wipe S3_DATA_DIR first            (default 1)
#   S3_START_TIMEOUT   seconds to wait for each step         (default 60)
# Output: S3_ENDPOINT=... S3_ACCESS_KEY_ID=... S3_SECRET_ACCESS_KEY=... S3_BUCKET=... S3_REGION=...
# Stop with stop-ceph-rgw.sh (same S3_PORT / S3_DATA_DIR).
set -euo pipefail

S3_PORT="${S3_PORT:-4800}"
S3_MON_PORT="${S3_MON_PORT:-$((S3_PORT + 10))}"
S3_MS_PORT_MIN="${S3_MS_PORT_MIN:-$((S3_PORT + 20))}"
S3_MS_PORT_MAX="${S3_MS_PORT_MAX:-$((S3_PORT + 49))}"
S3_DATA_DIR="${S3_DATA_DIR:-/tmp/ceph-s3-$S3_PORT}"
S3_OBJECTSTORE="${S3_OBJECTSTORE:-bluestore}"
S3_STORE_BYTES="${S3_STORE_BYTES:-4294967296}"
S3_ACCESS_KEY_ID="${S3_ACCESS_KEY_ID:-TESTACCESSKEY0000001}"
S3_SECRET_ACCESS_KEY="${S3_SECRET_ACCESS_KEY:-testsecretkey0000000000000000000000000001}"
S3_BUCKET="${S3_BUCKET:-test-bucket}"
S3_REGION="${S3_REGION:-us-east-1}"
S3_WITH_MGR="${S3_WITH_MGR:-0}"
S3_SKIP_INSTALL="${S3_SKIP_INSTALL:-0}"
S3_FRESH="${S3_FRESH:-1}"
S3_START_TIMEOUT="${S3_START_TIMEOUT:-60}"
IP=127.0.0.1

log() { printf '[start-ceph-rgw %s] %s\n' "$(date +%T)" "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }
t0=$(date +%s.%N)
since() { awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1fs", b-a}'; }

# ---------------------------------------------------------------- install
if [ "$S3_SKIP_INSTALL" != 1 ]; then
  pkgs=()
  for p in ceph-mon ceph-osd radosgw curl uuid-runtime; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || pkgs+=("$p")
  done
  if [ "$S3_WITH_MGR" = 1 ]; then
    dpkg-query -W -f='${Status}' ceph-mgr 2>/dev/null | grep -q 'install ok installed' || pkgs+=(ceph-mgr)
  fi
  if [ "${#pkgs[@]}" -gt 0 ]; then
    log "apt-get install ${pkgs[*]}"
    # 'apt-get update' only when the package lists are missing or stale
    if [ -z "$(find /var/lib/apt/lists -maxdepth 1 -name '*Packages*' -mmin -720 2>/dev/null | head -1)" ]; then
      apt-get update -qq >&2
    fi
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${pkgs[@]}" >&2
    log "installed in $(since)"
  fi
fi
for b in ceph-mon ceph-osd radosgw radosgw-admin ceph monmaptool ceph-authtool curl uuidgen; do
  command -v "$b" >/dev/null || die "$b not found (install ceph-mon ceph-osd radosgw curl uuid-runtime)"
done

D="$S3_DATA_DIR"
CONF="$D/ceph.conf"
C=(-c "$CONF")

# refuse to clobber a running cluster
if [ -f "$D/run/mon.a.pid.sh" ] && kill -0 "$(cat "$D/run/mon.a.pid.sh")" 2>/dev/null; then
  die "a cluster is already running in $D (run stop-ceph-rgw.sh first)"
fi
# ports free?
for p in "$S3_PORT" "$S3_MON_PORT"; do
  if (exec 3<>"/dev/tcp/$IP/$p") 2>/dev/null; then die "port $p on $IP is already in use"; fi
done

# memstore keeps objects in the OSD's memory only: a kept data folder is useless
if [ "$S3_OBJECTSTORE" = memstore ] && [ "$S3_FRESH" != 1 ]; then
  log "S3_OBJECTSTORE=memstore is not persistent; starting fresh (use bluestore to keep data)"
  S3_FRESH=1
fi
# a folder from a start that never finished is wiped as well
if [ "$S3_FRESH" = 1 ] || [ ! -f "$D/.initialised" ]; then rm -rf "$D"; fi
mkdir -p "$D"/{run,log,crash,mon.a,osd.0,rgw}
new=0; [ -f "$D/.initialised" ] || new=1

# ---------------------------------------------------------------- config
if [ "$new" = 1 ]; then
  FSID=$(uuidgen)
  cat >"$CONF" <<EOF
[global]
fsid = $FSID
mon initial members = a
mon host = v2:$IP:$S3_MON_PORT
public addr = $IP
ms bind ipv4 = true
ms bind ipv6 = false
ms bind msgr1 = false
ms bind port min = $S3_MS_PORT_MIN
ms bind port max = $S3_MS_PORT_MAX
auth cluster required = none
auth service required = none
auth client required = none
run dir = $D/run
crash dir = $D/crash
admin socket = $D/run/\$name.asok
pid file = $D/run/\$name.pid
log file = $D/log/\$name.log
log to stderr = false
err to stderr = false
mon cluster log file = $D/log/cluster.log
keyring = $D/keyring
osd pool default size = 1
osd pool default min size = 1
osd pool default pg num = 8
osd pool default pgp num = 8
osd pool default pg autoscale mode = off
osd crush chooseleaf type = 0
mon max pg per osd = 1000
mon allow pool size one = true
mon warn on pool no redundancy = false
mon warn on insecure global id reclaim = false
mon warn on insecure global id reclaim allowed = false
mon data avail warn = 2
mon data avail crit = 1
mon osd full ratio = .99
mon osd backfillfull ratio = .99
mon osd nearfull ratio = .98
osd failsafe full ratio = .995

[mon]
mon data = $D/mon.\$id
mon allow pool delete = true

[osd]
osd data = $D/osd.\$id
osd objectstore = $S3_OBJECTSTORE
memstore device bytes = $S3_STORE_BYTES
bluestore block create = true
bluestore block size = $S3_STORE_BYTES
bluestore fsck on mount = false
bluestore cache autotune = false
bluestore cache size = 134217728
osd memory target = 939524096
# single OSD: the mon never acks "marking myself down", so do not wait 5 s for it
osd mon shutdown timeout = 0.5
osd op num shards = 1
osd op num threads per shard = 2

[mgr]
mgr data = $D/mgr.\$id

[client.rgw.a]
# radosgw defaults to ms_mon_client_mode=secure + auth_client_required=cephx,
# which cannot work with auth none: it then loops on "get_initial_auth_request returned -13"
ms mon client mode = crc
auth client required = none
rgw frontends = beast endpoint=$IP:$S3_PORT
rgw data = $D/rgw
rgw thread pool size = 64
rgw enable usage log = false
EOF
  ceph-authtool --create-keyring "$D/keyring" --gen-key -n mon. --cap mon 'allow *' >/dev/null
  ceph-authtool "$D/keyring" --gen-key -n client.admin --cap mon 'allow *' --cap osd 'allow *' --cap mgr 'allow *' >/dev/null
  monmaptool --create --clobber --fsid "$FSID" --addv a "[v2:$IP:$S3_MON_PORT]" "$D/monmap" >/dev/null
  ceph-mon "${C[@]}" --mkfs -i a --monmap "$D/monmap" --keyring "$D/keyring"
fi

# ---------------------------------------------------------------- helpers
started=()   # pids started by this run; TERMed again if the script fails
last_pid=""  # the daemon being waited for; a wait ends early if it exits
on_exit() {
  local rc=$?
  if [ "$rc" != 0 ] && [ "${#started[@]}" -gt 0 ]; then
    log "start failed: stopping the daemons it started (${started[*]}); logs kept in $D/log"
    kill -TERM "${started[@]}" 2>/dev/null || true
  fi
}
trap on_exit EXIT
wait_for() { # desc, command...   (bounded by S3_START_TIMEOUT seconds)
  local desc="$1"; shift
  local deadline=$(($(date +%s) + S3_START_TIMEOUT))
  while [ "$(date +%s)" -lt "$deadline" ]; do
    if "$@" >/dev/null 2>&1; then return 0; fi
    if [ -n "$last_pid" ] && ! kill -0 "$last_pid" 2>/dev/null; then
      die "the daemon for $desc exited (see $D/log)"
    fi
    sleep 0.25
  done
  die "timed out after ${S3_START_TIMEOUT}s waiting for $desc (logs in $D/log)"
}
# run a daemon in the foreground (-f) in its own session; we keep its pid
daemon() { # name, command...
  local name="$1"; shift
  setsid "$@" -f </dev/null >>"$D/log/$name.stdout" 2>&1 &
  last_pid=$!
  started+=("$last_pid")
  echo "$last_pid" >"$D/run/$name.pid.sh"
}
ceph_() { timeout 20 ceph "${C[@]}" --connect-timeout 15 "$@"; }

# ---------------------------------------------------------------- mon
daemon mon.a ceph-mon "${C[@]}" -i a
wait_for "ceph-mon" ceph_ mon stat
log "mon up ($(since))"

# ---------------------------------------------------------------- mgr (optional)
if [ "$S3_WITH_MGR" = 1 ]; then
  mkdir -p "$D/mgr.x"
  daemon mgr.x ceph-mgr "${C[@]}" -i x
  last_pid=""
fi

# ---------------------------------------------------------------- osd
if [ "$new" = 1 ]; then
  OSD_UUID=$(uuidgen)
  last_pid=""
  osd_id=$(ceph_ osd new "$OSD_UUID")
  [ "$osd_id" = 0 ] || die "unexpected osd id '$osd_id'"
  ceph-osd "${C[@]}" -i 0 --mkfs --osd-uuid "$OSD_UUID" >"$D/log/osd-mkfs.log" 2>&1 \
    || { cat "$D/log/osd-mkfs.log" >&2; die "ceph-osd --mkfs failed"; }
fi
daemon osd.0 ceph-osd "${C[@]}" -i 0
osd_up() { ceph_ osd dump | grep -q '^osd\.0 up'; }
wait_for "osd.0 up" osd_up
log "osd up ($(since))"

# ---------------------------------------------------------------- rgw
daemon client.rgw.a radosgw "${C[@]}" -n client.rgw.a
rgw_http() { curl -s -o /dev/null --max-time 2 "http://$IP:$S3_PORT/"; }
wait_for "radosgw on $IP:$S3_PORT" rgw_http
log "rgw answering ($(since))"

# ---------------------------------------------------------------- user, bucket
last_pid=""
if ! timeout 30 radosgw-admin "${C[@]}" user info --uid=s3test >/dev/null 2>&1; then
  timeout 30 radosgw-admin "${C[@]}" user create --uid=s3test --display-name="S3 test user" \
    --access-key="$S3_ACCESS_KEY_ID" --secret="$S3_SECRET_ACCESS_KEY" >/dev/null
fi
EP="http://$IP:$S3_PORT"
mkbucket() {
  local code
  code=$(curl -s -o "$D/log/create-bucket.out" -w '%{http_code}' --max-time 10 -X PUT \
    --aws-sigv4 "aws:amz:$S3_REGION:s3" --user "$S3_ACCESS_KEY_ID:$S3_SECRET_ACCESS_KEY" \
    -H "x-amz-content-sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" \
    "$EP/$S3_BUCKET")
  # 200 created, 409 BucketAlreadyExists/OwnedByYou on a kept cluster
  [ "$code" = 200 ] || [ "$code" = 409 ]
}
wait_for "bucket $S3_BUCKET" mkbucket
touch "$D/.initialised"
log "ready in $(since)"

echo "S3_ENDPOINT=$EP"
echo "S3_ACCESS_KEY_ID=$S3_ACCESS_KEY_ID"
echo "S3_SECRET_ACCESS_KEY=$S3_SECRET_ACCESS_KEY"
echo "S3_BUCKET=$S3_BUCKET"
echo "S3_REGION=$S3_REGION"
