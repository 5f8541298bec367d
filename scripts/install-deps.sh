#!/bin/sh
# Install the Debian packages etdump-bpf needs to build, test and benchmark,
# when they are missing. Needs root (or sudo) only when something is missing.
set -eu

packages="make gcc clang llvm libbpf-dev libelf-dev zlib1g-dev pkg-config
bpftool flatbuffers-compiler python3 util-linux bpftrace valgrind
libclang-rt-14-dev binutils"

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"

# install-deps.sh arm64: also the cross toolchain, the arm64 multiarch -dev
# packages of the libraries (static archives included) and qemu-user to run
# the arm64 build here (make ARCH=arm64, make test ARCH=arm64)
case "${1:-}" in
"") ;;
arm64)
	packages="$packages gcc-aarch64-linux-gnu g++-aarch64-linux-gnu
libc6-dev:arm64 libbpf-dev:arm64 libelf-dev:arm64 zlib1g-dev:arm64
libstdc++6:arm64 qemu-user"
	dpkg --print-foreign-architectures | grep -qx arm64 ||
		$sudo dpkg --add-architecture arm64
	;;
*)
	echo "install-deps.sh: no cross build for '$1' (arm64 is)" >&2
	exit 2
	;;
esac

missing=""
for p in $packages; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0

echo "installing:$missing"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
# shellcheck disable=SC2086
$sudo apt-get install -y -qq --no-install-recommends $missing >/dev/null
