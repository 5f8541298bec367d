"""Every command the README and docs/ mark runnable (`sh run` blocks) runs
as written on a fresh clone, against the build under test
(tests/e2e/doc_blocks.py says how)."""
import os
import tempfile
import unittest

import doc_blocks

DocBlocks = doc_blocks.page_tests("plain", __name__)


class BlockRunnerTest(unittest.TestCase):
    """A marked command that fails fails its page's test, wherever it
    stands in its block: a page's promise is each of its commands."""

    def run_text(self, text):
        with tempfile.NamedTemporaryFile("w", suffix=".md") as page:
            page.write(text)
            page.flush()
            doc_blocks.run_page(self, os.path.abspath(page.name), "plain")

    def test_a_failing_command_fails_the_page(self):
        for body in ("false", "false\ntrue", "false | cat",
                     "etdump-bpf report no-such.etdp"):
            with self.subTest(body=body):
                with self.assertRaises(AssertionError):
                    self.run_text(f"# page\n\n```sh run\n{body}\n```\n")

    def test_shown_blocks_are_not_run(self):
        self.run_text("```sh\nfalse\n```\n\n````\n```sh run\nfalse\n```\n"
                      "````\n\n```sh run\ntest -x build/etdump-bpf\n```\n")


if __name__ == "__main__":
    unittest.main()
