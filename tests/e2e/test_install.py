"""make install with PREFIX and DESTDIR: the binary, a man page made from
its own --help texts (so the two cannot drift), and bash completion that
asks the binary for its commands and options."""
import os
import subprocess

from etdump_e2e import BUILD, CLI, ROOT, TempDirTest, run

COMMANDS = ("record", "list", "convert", "report", "diff")


def unroff(text):
    return "\n".join(line[2:] if line.startswith("\\&") else line
                     for line in text.replace("\\e", "\\").split("\n"))


class InstallTest(TempDirTest):
    def install(self):
        dest = self.path("dest")
        # the files are built: -o keeps make from rebuilding them with
        # other flags than the suite's build (ASan)
        proc = run(["make", "-s", "-C", ROOT, f"OUT={BUILD}",
                    "-o", CLI, "-o", os.path.join(BUILD, "etdump-bpf.1"),
                    "install", f"DESTDIR={dest}", "PREFIX=/usr"],
                   timeout=120)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        return os.path.join(dest, "usr")

    def test_install_puts_each_file_under_destdir_and_prefix(self):
        usr = self.install()
        found = sorted(os.path.relpath(os.path.join(d, f), usr)
                       for d, _, files in os.walk(usr) for f in files)
        self.assertEqual(found, [
            "bin/etdump-bpf",
            "share/bash-completion/completions/etdump-bpf",
            "share/man/man1/etdump-bpf.1"])
        with open(CLI, "rb") as a, open(os.path.join(usr, "bin",
                                                     "etdump-bpf"), "rb") as b:
            self.assertEqual(a.read(), b.read())
        self.assertTrue(os.access(os.path.join(usr, "bin", "etdump-bpf"),
                                  os.X_OK))

    def test_man_page_holds_every_help_text(self):
        usr = self.install()
        with open(os.path.join(usr, "share", "man", "man1",
                               "etdump-bpf.1")) as f:
            page = unroff(f.read())
        self.assertTrue(page.startswith(".TH ETDUMP-BPF 1 "))
        self.assertIn(run([CLI, "--help"]).stdout.rstrip("\n"), page)
        for cmd in COMMANDS:
            self.assertIn(f".SS etdump-bpf {cmd}\n", page)
            text = run([CLI, cmd, "--help"]).stdout.rstrip("\n")
            self.assertIn(text, page, cmd)

    def complete(self, script, words):
        line = " ".join(words)
        proc = subprocess.run(
            ["bash", "-c", f'source "{script}"; COMP_WORDS=({line}); '
             f'COMP_CWORD={len(words) - 1}; _etdump_bpf "{CLI}"; '
             'printf "%s\\n" "${COMPREPLY[@]}"'],
            capture_output=True, text=True, timeout=60)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        return proc.stdout.split()

    def test_bash_completion_asks_the_binary(self):
        usr = self.install()
        script = os.path.join(usr, "share", "bash-completion", "completions",
                              "etdump-bpf")
        # (other commands may join these)
        commands = self.complete(script, [CLI, "''"])
        self.assertEqual([c for c in commands if c in COMMANDS],
                         list(COMMANDS))
        self.assertEqual(self.complete(script, [CLI, "di"]), ["diff"])
        self.assertEqual(self.complete(script, [CLI, "report", "--so"]),
                         ["--sort"])
        self.assertIn("--fail-above",
                      self.complete(script, [CLI, "diff", "--"]))
        self.assertEqual(self.complete(script, [CLI, "diff", "--format",
                                                "m"]), ["markdown"])
        self.assertEqual(self.complete(script, [CLI, "report", "--units",
                                                "m"]), ["ms"])
        self.assertIn("--raw", self.complete(script, [CLI, "record", "--r"]))
