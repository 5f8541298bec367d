"""The code keeps its layers (scripts/check_layers.py): the tree as it is
passes, and each fault the check exists for makes it fail, named."""
import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
CHECK = os.path.join(ROOT, "scripts", "check_layers.py")


def check(root):
    return subprocess.run([sys.executable, CHECK, "--root", root],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, timeout=60)


class LayersTest(unittest.TestCase):
    def test_the_tree_keeps_its_layers(self):
        proc = check(ROOT)
        self.assertEqual((proc.returncode, proc.stdout, proc.stderr),
                         (0, "", ""))

    def tree(self, files):
        """A small tree of files {path: text}, removed after the test."""
        tmp = tempfile.TemporaryDirectory(prefix="etdump-layers-")
        self.addCleanup(tmp.cleanup)
        for path, text in files.items():
            full = os.path.join(tmp.name, path)
            os.makedirs(os.path.dirname(full), exist_ok=True)
            with open(full, "w") as f:
                f.write(text)
        return tmp.name

    def assertFaults(self, files, *faults):
        proc = check(self.tree(files))
        self.assertEqual(proc.returncode, 1, proc.stdout + proc.stderr)
        for fault in faults:
            self.assertIn(fault, proc.stdout)
        self.assertEqual(len(proc.stdout.splitlines()), len(faults),
                         proc.stdout)

    def test_a_clean_small_tree_passes(self):
        proc = check(self.tree({
            "user/lib/log.h": "",
            "user/cli/main.c": '#include "lib/log.h"\n'
                               '#include "schema/etdump_record.h"\n',
            "schema/etdump_record.h": "",
            "scripts/a.py": "import b\n",
            "scripts/b.py": "",
        }))
        self.assertEqual((proc.returncode, proc.stdout), (0, ""))

    def test_an_include_naming_no_folder_fails(self):
        self.assertFaults({
            "user/lib/log.h": "",
            "user/cli/main.c": '#include "log.h"\n',
        }, 'user/cli/main.c:1: #include "log.h" names no folder')

    def test_an_include_reaching_up_a_layer_fails(self):
        self.assertFaults({
            "user/cli/cli.h": "",
            "user/lib/log.c": '\n#include "cli/cli.h"\n',
        }, "user/lib/log.c:2: user/lib/ reaches up into user/cli/")

    def test_files_using_each_other_fail(self):
        self.assertFaults({
            "user/lib/a.h": "",
            "user/lib/b.h": "",
            "user/lib/a.c": '#include "lib/b.h"\n',
            "user/lib/b.c": '#include "lib/a.h"\n',
        }, "files that use each other: user/lib/a <-> user/lib/b")

    def test_scripts_importing_each_other_fail(self):
        self.assertFaults({
            "scripts/a.py": "import b\n",
            # an import inside a function counts as much
            "scripts/b.py": "def f():\n    import a\n",
        }, "files that use each other: scripts/a.py <-> scripts/b.py")

    def test_a_long_c_file_fails(self):
        self.assertFaults({
            "user/collect/big.c": "int x;\n" * 901,
            "user/collect/small.c": "int y;\n" * 900,
        }, "user/collect/big.c: 901 lines, over 900")

    def test_a_folder_of_no_layer_fails(self):
        self.assertFaults({"user/misc/a.c": ""},
                          "user/misc/: a folder LAYERS in "
                          "scripts/check_layers.py does not place")


if __name__ == "__main__":
    unittest.main()
