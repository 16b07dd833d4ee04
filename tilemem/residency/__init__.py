"""Phase 4, loop-invariant Mat residency, over the phase-3 rewritten program: its facts
(``facts``), the residency rules evaluated (``solve``), the hoists applied (``hoists``)
and the rules' verdicts in words (``verdicts``)."""
