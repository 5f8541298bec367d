#!/bin/sh
# Install the Debian packages etdump-bpf needs to build, test and benchmark,
# when they are missing. Needs root (or sudo) only when something is missing.
set -eu

packages="make gcc clang llvm libbpf-dev libelf-dev zlib1g-dev pkg-config
bpftool flatbuffers-compiler python3 util-linux bpftrace valgrind
libclang-rt-14-dev binutils"

missing=""
for p in $packages; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0

echo "installing:$missing"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
# shellcheck disable=SC2086
$sudo apt-get install -y -qq --no-install-recommends $missing >/dev/null
