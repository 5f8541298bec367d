"""The kernels of the matrix: Debian's kernel packages, one per suite and
architecture. A kernel's name is "<version>-<arch>"; adding one is a line
here (and, for a new suite, its name in SUITES)."""

# name: (Debian suite, Debian architecture)
KERNELS = {
    "5.10-amd64": ("bullseye", "amd64"),
    "6.1-amd64": ("bookworm", "amd64"),
    "6.12-amd64": ("trixie", "amd64"),
    "5.10-arm64": ("bullseye", "arm64"),
    "6.1-arm64": ("bookworm", "arm64"),
    "6.12-arm64": ("trixie", "arm64"),
}

SUITES = sorted({suite for suite, _ in KERNELS.values()})
ARCHES = sorted({arch for _, arch in KERNELS.values()})

# the matrix's row for this machine's own kernel (no guest)
HOST = "host"


def arch_of(name):
    return KERNELS[name][1]


def check(name):
    if name not in KERNELS:
        raise SystemExit(f"unknown kernel '{name}': one of "
                         f"{', '.join(KERNELS)}")
    return name
