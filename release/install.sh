#!/bin/sh
# install.sh: the launcher of the installer (installer/installer.mjs, built JavaScript).
#
#   ./install.sh <status|backup|upgrade|restore|recover|cleanup|import-globals|install> [--home /opt/service] ...
#
# Before it runs any code of this package it checks, with openssl, that SHA256SUMS is signed by
# the vendor key it carries (or a key in SERVICE_INSTALLER_TRUSTED_KEYS), and that the files it
# is about to use (the installer, the manifest, and when needed the app image) match SHA256SUMS.
# The installer then checks everything else.
#
# It runs the installer with this host's Node.js when that is 20.19 or newer. Otherwise it runs it
# inside this package's app image (which has Node.js), with the package folder, the installation
# directory and the Docker socket mounted, and the host's docker command lent to it.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
installer="$here/installer/installer.mjs"

fail() {
  printf 'error: %s\n' "$1" >&2
  [ -n "${2:-}" ] && printf 'hint: %s\n' "$2" >&2
  exit 1
}

# ---- Trust before running: the signature of SHA256SUMS, then the files used here. -----------

# The vendor key (Ed25519, base64 SPKI DER) and any keys from SERVICE_INSTALLER_TRUSTED_KEYS,
# exactly as the installer trusts them.
VENDOR_KEY='MCowBQYDK2VwAyEAb1fxqQJ5BrTW5m4wdNUfyKFTKq+sMr0pKaLEd04Bcwk='

work=
cleanup_work() { [ -n "$work" ] && rm -rf "$work"; }
trap cleanup_work EXIT

verify_signature() {
  command -v openssl >/dev/null 2>&1 || fail "openssl is needed to check the package signature before anything of the package runs" \
    "Install openssl (3.0 or newer), then run ./install.sh again."
  ossl=$(openssl version 2>/dev/null || true)
  case "$ossl" in
    "OpenSSL "[3-9].*|"OpenSSL "[1-9][0-9].*) ;;
    *) fail "openssl 3.0 or newer is needed to check the package's Ed25519 signature (this host has: ${ossl:-an openssl that does not answer})" \
      "Install OpenSSL 3.0 or newer, then run ./install.sh again." ;;
  esac
  work=$(mktemp -d)
  [ -f "$here/SHA256SUMS" ] || fail "$here holds no SHA256SUMS: it is not an extracted release package" \
    "Run install.sh from the folder extracted from service-X.Y.Z-offline.tar.gz."
  [ -f "$here/SHA256SUMS.sig" ] || fail "the package is not signed: SHA256SUMS.sig is missing" "Use only packages signed by the vendor."
  sig=$(tr -d '\n ' < "$here/SHA256SUMS.sig" | sed -n 's/.*"signature":"\([A-Za-z0-9_-]*\)".*/\1/p')
  [ -n "$sig" ] || fail "SHA256SUMS.sig holds no signature" "Get the package again from the vendor."
  # base64url -> base64 with padding
  sig=$(printf '%s' "$sig" | tr '_-' '/+')
  while [ $(( ${#sig} % 4 )) -ne 0 ]; do sig="$sig="; done
  printf '%s' "$sig" | base64 -d > "$work/sig" 2>/dev/null || fail "SHA256SUMS.sig is not readable" "Get the package again from the vendor."
  printf 'service-release-signature-v1\nSHA256SUMS\n' > "$work/message"
  cat "$here/SHA256SUMS" >> "$work/message"
  keys=$VENDOR_KEY
  [ -n "${SERVICE_INSTALLER_TRUSTED_KEYS:-}" ] && keys="$keys,$SERVICE_INSTALLER_TRUSTED_KEYS"
  old_ifs=$IFS
  IFS=,
  for key in $keys; do
    IFS=$old_ifs
    printf -- '-----BEGIN PUBLIC KEY-----\n%s\n-----END PUBLIC KEY-----\n' "$(printf '%s' "$key" | tr -d ' ')" > "$work/key.pem"
    if openssl pkeyutl -verify -pubin -inkey "$work/key.pem" -rawin -in "$work/message" -sigfile "$work/sig" >/dev/null 2>&1; then
      return 0
    fi
  done
  IFS=$old_ifs
  fail "SHA256SUMS does not match its signature by any trusted key" "Do not use this package. Get it again from the vendor."
}

# One file of the package against the signed SHA256SUMS.
verify_file() {
  line=$(awk -v f="$1" '$2 == f { print; exit }' "$here/SHA256SUMS")
  [ -n "$line" ] || fail "SHA256SUMS does not list $1" "Get the package again from the vendor."
  (cd "$here" && printf '%s\n' "$line" | sha256sum -c --quiet - >/dev/null 2>&1) ||
    fail "$1 does not match SHA256SUMS" "Do not use this package. Get it again from the vendor."
}

verify_signature
verify_file installer/installer.mjs
verify_file manifest.json

node_is_recent() {
  command -v node >/dev/null 2>&1 || return 1
  v=$(node -p 'process.versions.node' 2>/dev/null) || return 1
  major=${v%%.*}
  rest=${v#*.}
  minor=${rest%%.*}
  [ "$major" -gt 20 ] 2>/dev/null && return 0
  [ "$major" -eq 20 ] 2>/dev/null && [ "$minor" -ge 19 ] 2>/dev/null
}

if [ "${SERVICE_INSTALLER_USE_IMAGE:-0}" != 1 ] && node_is_recent; then
  cleanup_work
  exec node "$installer" "$@"
fi

# ---- No suitable Node.js on the host: run the installer inside the app image. ----------------

command -v docker >/dev/null 2>&1 || fail "neither Node.js 20.19+ nor Docker is installed on this host" \
  "Install Docker Engine 25.0+ with the compose plugin 2.24.0+ (the service runs on it), then run ./install.sh again."

home=/opt/service
previous=
for arg in "$@"; do
  case "$previous" in --home) home=$arg ;; esac
  case "$arg" in --home=*) home=${arg#--home=} ;; esac
  previous=$arg
done
mkdir -p "$home"
home=$(cd "$home" && pwd)

version=$(sed -n 's/^  "version": "\([^"]*\)",$/\1/p' "$here/manifest.json" | head -n 1)
[ -n "$version" ] || fail "$here/manifest.json names no version" "Run install.sh from the folder extracted from service-X.Y.Z-offline.tar.gz."
image="service/app:$version"

if ! docker image inspect "$image" >/dev/null 2>&1; then
  verify_file images/app.tar
  echo "Loading $image to run the installer (this host has no Node.js 20.19+)..."
  docker load -i "$here/images/app.tar" >/dev/null
fi
cleanup_work

docker_bin=$(command -v docker)
plugin_mount=
for dir in /usr/local/lib/docker/cli-plugins /usr/libexec/docker/cli-plugins /usr/lib/docker/cli-plugins "${HOME:-/root}/.docker/cli-plugins"; do
  if [ -x "$dir/docker-compose" ]; then
    plugin_mount="-v $dir:/usr/local/lib/docker/cli-plugins:ro"
    break
  fi
done
socket=/var/run/docker.sock
case "${DOCKER_HOST:-}" in unix://*) socket=${DOCKER_HOST#unix://} ;; esac
tty=
[ -t 0 ] && [ -t 1 ] && tty=-t

# Why the same paths inside and out: compose passes bind-mount paths to the Docker daemon, which
# resolves them on the host. Why --pid/--uts host: the installer's lock records a pid and host name.
# shellcheck disable=SC2086
exec docker run --rm -i $tty --user 0:0 --pid host --uts host \
  -v "$socket:/var/run/docker.sock" \
  -v "$docker_bin:/usr/local/bin/docker:ro" $plugin_mount \
  -v "$here:$here:ro" -v "$home:$home" \
  -w "$here" \
  -e SERVICE_INSTALLER_IN_IMAGE=1 -e SERVICE_INSTALLER_TRUSTED_KEYS="${SERVICE_INSTALLER_TRUSTED_KEYS:-}" -e TERM="${TERM:-dumb}" \
  --entrypoint node "$image" "$installer" "$@"
