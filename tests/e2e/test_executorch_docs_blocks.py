"""The documentation's blocks that need the ExecuTorch build beside the
clone (`sh run executorch`: the README's tour of a runner built with the
EventTracer and of a stock binary in symbol mode, among others) run as
written; tests/run.py loads this module only where ExecuTorch is found."""
import unittest

import doc_blocks

DocBlocks = doc_blocks.page_tests("executorch", __name__)

if __name__ == "__main__":
    unittest.main()
