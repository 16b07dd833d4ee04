"""Phases 0-3 of InferTileMemorySpace: evaluate the rules (``solver``), then rewrite
the IR with what they derived (``emitter``).  Phase 4 is ``tilemem.residency``."""
