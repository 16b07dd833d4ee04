"""Phase 4, loop-invariant Mat residency: the rules' verdicts in words (``verdicts``)."""
