#!/usr/bin/env bash
# Stop the cluster started by start-ceph-rgw.sh (same S3_PORT / S3_DATA_DIR).
# Sends TERM to radosgw, then to the OSD, mgr and mon, each by the pid
# recorded at start; KILL to any still alive after S3_STOP_TIMEOUT seconds.
#   S3_KEEP_DATA=1  keep S3_DATA_DIR (default: remove it)
set -uo pipefail
S3_PORT="${S3_PORT:-4800}"
S3_DATA_DIR="${S3_DATA_DIR:-/tmp/ceph-s3-$S3_PORT}"
S3_STOP_TIMEOUT="${S3_STOP_TIMEOUT:-15}"
S3_KEEP_DATA="${S3_KEEP_DATA:-0}"
D="$S3_DATA_DIR"

names=(client.rgw.a osd.0 mgr.x mon.a)
pids=()
[ -d "$D" ] || { echo "[stop-ceph-rgw] nothing at $D" >&2; exit 0; }
# TERM radosgw first, then the rest; every daemon exits within ~2 s
for n in "${names[@]}"; do
  f="$D/run/$n.pid.sh"
  [ -f "$f" ] || continue
  pid=$(cat "$f")
  # only a live process started with this cluster's ceph.conf (guards against pid reuse)
  if [ -n "$pid" ] && { tr '\0' ' ' <"/proc/$pid/cmdline"; } 2>/dev/null | grep -qF -- "$D/ceph.conf"; then kill -TERM "$pid" 2>/dev/null && pids+=("$pid:$n"); fi
  [ "$n" = client.rgw.a ] && sleep 0.2
done
for ((i = 0; i < S3_STOP_TIMEOUT * 10; i++)); do
  alive=0
  for pn in "${pids[@]}"; do kill -0 "${pn%%:*}" 2>/dev/null && alive=1; done
  [ "$alive" = 0 ] && break
  sleep 0.1
done
for pn in "${pids[@]}"; do
  if kill -0 "${pn%%:*}" 2>/dev/null; then
    echo "[stop-ceph-rgw] ${pn#*:} (pid ${pn%%:*}) did not stop in ${S3_STOP_TIMEOUT}s, sending KILL" >&2
    kill -KILL "${pn%%:*}" 2>/dev/null
  fi
done
for n in "${names[@]}"; do rm -f "$D/run/$n.pid.sh"; done
if [ "$S3_KEEP_DATA" != 1 ]; then rm -rf "$D"; fi
echo "[stop-ceph-rgw] stopped" >&2
