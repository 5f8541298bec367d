#!/bin/sh
# Install the Debian packages etdump-bpf needs to build, test and benchmark,
# when they are missing. Needs root (or sudo) only when something is missing.
set -eu

# golang-go and graphviz: go tool pprof, which reads the profiles convert
# writes (tests/e2e/test_pprof.py), and the dot its web UI draws graphs with
packages="make gcc clang llvm libbpf-dev libelf-dev zlib1g-dev pkg-config
bpftool flatbuffers-compiler python3 util-linux bpftrace valgrind
libclang-rt-14-dev binutils golang-go graphviz"

# The real-viewer tests (tests/viewer): Chromium, Node.js and the npm
# packages pinned in tests/viewer/package-lock.json, installed there. Where
# that fails the tests say in one line that they did not run.
viewer_deps() {
	want=""
	command -v chromium >/dev/null || want="$want chromium"
	command -v node >/dev/null || want="$want nodejs"
	command -v npm >/dev/null || want="$want npm"
	if [ -n "$want" ]; then
		echo "installing (viewer tests):$want"
		$sudo apt-get update -qq || return 1
		# shellcheck disable=SC2086
		$sudo apt-get install -y -qq --no-install-recommends $want \
			>/dev/null || return 1
	fi
	dir="$(dirname "$0")/../tests/viewer"
	[ "$dir/node_modules/.package-lock.json" -nt "$dir/package-lock.json" ] &&
		return 0
	echo "installing (viewer tests): npm packages in tests/viewer"
	(cd "$dir" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
}

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive

# install-deps.sh arm64: also the cross toolchain, the arm64 multiarch -dev
# packages of the libraries (static archives included) and qemu-user to run
# the arm64 build here (make ARCH=arm64, make test ARCH=arm64)
# install-deps.sh kernels: the same, and qemu-system for x86-64 and arm64
# with busybox-static (the x86-64 guests' initramfs), to boot Debian's
# kernels (make test-kernels, tests/kernels/)
case "${1:-}" in
"") ;;
arm64 | kernels)
	packages="$packages gcc-aarch64-linux-gnu g++-aarch64-linux-gnu
libc6-dev:arm64 libbpf-dev:arm64 libelf-dev:arm64 zlib1g-dev:arm64
libstdc++6:arm64 qemu-user"
	[ "$1" = arm64 ] ||
		packages="$packages qemu-system-x86 qemu-system-arm busybox-static"
	dpkg --print-foreign-architectures | grep -qx arm64 ||
		$sudo dpkg --add-architecture arm64
	;;
*)
	echo "install-deps.sh: no cross build for '$1' (arm64 is; kernels for make test-kernels)" >&2
	exit 2
	;;
esac

missing=""
for p in $packages; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing="$missing $p"
done
if [ -n "$missing" ]; then
	echo "installing:$missing"
	$sudo apt-get update -qq
	# shellcheck disable=SC2086
	$sudo apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi
viewer_deps || echo "could not install what the viewer tests need: they will not run" >&2
