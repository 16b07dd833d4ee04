"""Why is this tile Acc?  Proof trees and why-not answers computed from the rules.

* :mod:`~tilemem.explain.sourcemap`: facts and statement positions back to the source;
* :mod:`~tilemem.explain.nodes`: proof trees (:class:`ProofNode`), as text and JSON;
* :mod:`~tilemem.explain.search`: the minimal-height proof of a fact (:class:`Explainer`);
* :mod:`~tilemem.explain.whynot`: why a fact does not hold (:class:`WhyNot`);
* :mod:`~tilemem.explain.session`: the questions about one program (:class:`Session`);
* :mod:`~tilemem.explain.answer`: the answers people read (:class:`Answer`: ``tilemem why``,
  ``Solution.why``).
"""
from tilemem.explain.rendering import Answer
from tilemem.explain.nodes import ExplainError, ProofNode, format_fact
from tilemem.explain.search import Explainer
from tilemem.explain.session import Session
from tilemem.explain.sourcemap import SourceMap
from tilemem.explain.whynot import Candidate, WhyNot

__all__ = ["Answer", "ExplainError", "Explainer", "ProofNode", "WhyNot", "Candidate", "Session", "SourceMap",
           "format_fact"]
