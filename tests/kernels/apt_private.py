"""apt-get with a private state of its own: its own sources list (built
here from the mirror this machine's apt uses), its own lists and cache,
no installed-package status. The machine's own lists are never read or
changed, so fetching kernels of other suites and architectures leaves
its apt as it was."""
import os
import re
import subprocess

SOURCES_FILES = ("/etc/apt/sources.list.d/debian.sources",
                 "/etc/apt/sources.list")


def mirror_uri():
    """The Debian archive this machine's apt reads (not its security
    archive): the first URI that serves the main suites. No host is
    written into the repository; it is read here at run time."""
    for path in SOURCES_FILES:
        try:
            text = open(path).read()
        except OSError:
            continue
        # deb822: URIs: lines; one-line format: deb [opts] URI suite ...
        uris = re.findall(r"^URIs:\s*(\S+)", text, re.M)
        uris += re.findall(r"^deb\s+(?:\[[^\]]*\]\s+)?(\S+)", text, re.M)
        for uri in uris:
            if "security" not in uri:
                return uri.rstrip("/")
    raise SystemExit("no Debian mirror found in " + " or ".join(SOURCES_FILES))


class PrivateApt:
    """One suite's state: a package's records are then that suite's."""

    def __init__(self, state_dir, suite, arches):
        self.dir = state_dir
        self.suite = suite
        self.arches = arches
        self.sources = os.path.join(state_dir, "sources.list")
        self.lists = os.path.join(state_dir, "lists")
        self.cache = os.path.join(state_dir, "cache")

    def options(self):
        opts = ["-o", f"Dir::Etc::sourcelist={self.sources}",
                "-o", "Dir::Etc::sourceparts=/nonexistent",
                "-o", f"Dir::State::Lists={self.lists}",
                "-o", f"Dir::Cache={self.cache}",
                "-o", "Dir::State::status=/dev/null",
                # the cache is root's: apt's _apt user could not write it
                "-o", "APT::Sandbox::User=root",
                # the kernel's own Depends name no other architecture
                "-o", "APT::Architectures::=" + self.arches[0]]
        for arch in self.arches[1:]:
            opts += ["-o", "APT::Architectures::=" + arch]
        return opts

    def write_sources(self):
        os.makedirs(os.path.join(self.lists, "partial"), exist_ok=True)
        os.makedirs(os.path.join(self.cache, "archives", "partial"),
                    exist_ok=True)
        uri = mirror_uri()
        keyring = "/usr/share/keyrings/debian-archive-keyring.gpg"
        with open(self.sources, "w") as f:
            f.write(f"deb [signed-by={keyring}] {uri} {self.suite} main\n")

    def update(self):
        self.write_sources()
        subprocess.run(["apt-get", *self.options(), "-qq", "update"],
                       check=True)

    def show(self, package):
        """apt-cache show's records of one package (every version, every
        architecture the state knows)."""
        out = subprocess.run(["apt-cache", *self.options(), "show", package],
                             check=True, capture_output=True, text=True).stdout
        return [dict(re.findall(r"^([\w-]+): (.*)$", rec, re.M))
                for rec in out.split("\n\n") if rec.strip()]

    def download(self, spec, dest_dir):
        """apt-get download of one package=version:arch into dest_dir."""
        os.makedirs(dest_dir, exist_ok=True)
        subprocess.run(["apt-get", *self.options(), "-qq", "download", spec],
                       check=True, cwd=dest_dir)
