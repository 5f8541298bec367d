"""The documentation agrees with the binary and holds together: every option
a command's --help names (the text the man page is made from) is on that
command's page of docs/, the README links every command's page, every
relative link leads to a file and heading that exist, runnable blocks are
marked with words the block runner knows, and the README stays a front door
(its two set-up commands first, the tour runnable, at most 300 lines)."""
import os
import re
import unittest

import doc_blocks
from etdump_e2e import CLI, ROOT, run

OPTION = re.compile(r"(?<![\w-])(--?[A-Za-z][\w-]*)")


def helptext(*args):
    proc = run([CLI, *args, "--help"])
    if proc.returncode != 0:
        raise AssertionError(f"etdump-bpf {' '.join(args)} --help exited "
                             f"{proc.returncode}: {proc.stderr}")
    return proc.stdout


def commands():
    """The commands `etdump-bpf --help` lists (as scripts/help2man.py
    reads them)."""
    top = helptext()
    listing = top.split("commands:", 1)[1].split("\n\n")[0]
    return re.findall(r"^  (\w+)\s", listing, re.M)


def read(path):
    with open(os.path.join(ROOT, path)) as f:
        return f.read()


def page_names(command):
    return f"docs/etdump-bpf-{command}.md"


def outside_fences(text):
    """The page's lines that are not inside a fenced block."""
    out, fence = [], None
    for line in text.split("\n"):
        m = re.match(r"^(`{3,})", line)
        if fence is None and m:
            fence = m.group(1)
        elif fence is not None and re.match(rf"^{fence}`*\s*$", line):
            fence = None
        elif fence is None:
            out.append(line)
    return out


def anchors(text):
    """GitHub's ids of a page's headings."""
    ids = set()
    for line in outside_fences(text):
        m = re.match(r"^#{1,6}\s+(.*?)\s*$", line)
        if m:
            slug = re.sub(r"[^\w\- ]", "", m.group(1).lower())
            ids.add(slug.replace(" ", "-"))
    return ids


class DocsAgreeWithHelp(unittest.TestCase):
    def assert_options_on_page(self, help_text, page):
        text = read(page)
        # what follows " -- " in an example is the traced command's own
        own = "\n".join(line.split(" -- ")[0]
                        for line in help_text.split("\n"))
        options = sorted(set(OPTION.findall(own)))
        self.assertTrue(options, f"no option found in the help for {page}")
        missing = [o for o in options
                   if not re.search(rf"(?<![\w-]){re.escape(o)}(?![\w-])",
                                    text)]
        self.assertEqual(missing, [], f"{page} does not name these options "
                         f"its command's --help names")

    def test_every_command_option_is_on_its_page(self):
        cmds = commands()
        self.assertIn("record", cmds)
        for command in cmds:
            with self.subTest(command=command):
                text = helptext(command)
                # `top --help` is record's help (top is record --live): its
                # options are on the page of the command its usage names
                named = re.match(r"usage: etdump-bpf (\w+)", text).group(1)
                self.assertTrue(os.path.exists(
                    os.path.join(ROOT, page_names(command))),
                    f"{page_names(command)} is missing")
                self.assert_options_on_page(text, page_names(named))

    def test_global_options_are_on_the_main_page(self):
        self.assert_options_on_page(helptext().split("commands:", 1)[1],
                                    "docs/etdump-bpf.md")

    def test_readme_links_every_command_page(self):
        readme = read("README.md")
        for command in commands():
            with self.subTest(command=command):
                self.assertIn(f"({page_names(command)})", readme)


class DocsHoldTogether(unittest.TestCase):
    def test_relative_links_lead_somewhere(self):
        link = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
        for page in doc_blocks.pages():
            text = "\n".join(outside_fences(read(page)))
            for target in link.findall(text):
                if re.match(r"^[a-z]+:", target):
                    continue
                with self.subTest(page=page, link=target):
                    path, _, anchor = target.partition("#")
                    dest = os.path.normpath(os.path.join(
                        os.path.dirname(page), path)) if path else page
                    self.assertTrue(os.path.exists(os.path.join(ROOT, dest)),
                                    f"{page}: {target}: no such file")
                    if anchor and dest.endswith(".md"):
                        self.assertIn(anchor, anchors(read(dest)),
                                      f"{page}: {target}: no such heading")

    def test_runnable_markers_are_known(self):
        kinds = {"plain": 0, "executorch": 0}
        for page in doc_blocks.pages():
            for line, info, _ in doc_blocks.fenced_blocks(read(page)):
                with self.subTest(page=page, line=line):
                    try:
                        kind = doc_blocks.block_kind(info)
                    except ValueError as e:
                        self.fail(f"{page}:{line}: {e}")
                    if kind:
                        kinds[kind] += 1
        self.assertTrue(all(kinds.values()), f"runnable blocks: {kinds}")

    def test_readme_is_a_front_door(self):
        readme = read("README.md")
        lines = readme.split("\n")
        self.assertLessEqual(len(lines), 300)
        # CI and newcomers rely on these two first commands
        self.assertEqual(lines[2], "```sh")
        self.assertEqual(lines[3].split()[:2], ["make", "example"])
        self.assertEqual(lines[4].split()[:2], ["make", "test"])
        # every shell block of the tour is runnable, and it covers the
        # example runtime, the EventTracer runner and a stock binary
        tour = readme.split("## A five-minute tour", 1)[1].split("\n## ")[0]
        blocks = [(info, body) for _, info, body
                  in doc_blocks.fenced_blocks(tour)
                  if info.split()[:1] and info.split()[0] in doc_blocks.SHELLS]
        self.assertTrue(blocks)
        for info, body in blocks:
            self.assertIsNotNone(doc_blocks.block_kind(info),
                                 f"a tour block is not runnable:\n{body}")
        tour_text = "\n".join(body for _, body in blocks)
        for needed in ("build/example-runtime", "build/executorch-runner",
                       "bin/executor_runner"):
            self.assertIn(needed, tour_text)

    def test_layer_markers_for_the_design_section(self):
        for page in ("README.md", "docs/design.md"):
            text = read(page)
            with self.subTest(page=page):
                begin = text.find("<!-- layers:begin -->")
                end = text.find("<!-- layers:end -->")
                self.assertTrue(0 <= begin < end, f"{page}: layer markers")


if __name__ == "__main__":
    unittest.main()
