"""Every command the README and docs/ mark runnable (`sh run` blocks) runs
as written on a fresh clone, against the build under test
(tests/e2e/doc_blocks.py says how)."""
import unittest

import doc_blocks

DocBlocks = doc_blocks.page_tests("plain", __name__)

if __name__ == "__main__":
    unittest.main()
