"""Answers a compiler engineer reads in ten seconds: a paragraph first, then the few
proof steps that decide it, the whole proof on request.  This module answers a
question as ``tilemem why`` asks it (:func:`answer_subject`: a var, a line, a fact
pattern) and gathers what the CLI, the console and the library use:

* :mod:`~tilemem.explain.names`: facts' values in people's words;
* :mod:`~tilemem.explain.paragraph`: the deciding path of a proof and its paragraph;
* :mod:`~tilemem.explain.rendering`: :class:`Answer`, how it prints and its JSON;
* :mod:`~tilemem.explain.placement`: why a tile is in its space, why a move;
* :mod:`~tilemem.explain.residency_notes`: the residency verdict in words;
* :mod:`~tilemem.explain.notspace`: why a tile is not in a space (``--not``);
* :mod:`~tilemem.explain.position`: what a line of the input decides.
"""
from __future__ import annotations

from typing import Optional

from tilemem.explain.nodes import ExplainError
from tilemem.explain.names import Names, program_vars, space_name
from tilemem.explain.notspace import answer_not
from tilemem.explain.paragraph import value_sentence, why_not_sentence
from tilemem.explain.placement import answer_move, answer_var, not_a_tile
from tilemem.explain.position import answer_line, parse_position, tiles_at_line
from tilemem.explain.rendering import MAX_LINES, WIDTH, Answer, fit, wrap
from tilemem.explain.whynot import WhyNot

__all__ = ["Answer", "MAX_LINES", "Names", "WIDTH", "answer_line", "answer_move", "answer_not",
           "answer_pattern", "answer_subject", "answer_var", "fit", "not_a_tile", "parse_position",
           "program_vars", "space_name", "tiles_at_line", "wrap"]


def answer_subject(ses, subject, function: Optional[str] = None) -> Answer:
    """The answer ``tilemem why`` gives for ``subject``: a line (``12``, ``"12:8"``), a
    fact pattern, an inserted move or a tile var."""
    at = parse_position(subject)
    if at is not None:
        return answer_line(ses, *at)
    if not isinstance(subject, str):
        raise ExplainError(f"why takes a var name, a line or a fact pattern, not "
                           f"{type(subject).__name__}")
    if "(" in subject:
        return answer_pattern(ses, subject)
    return answer_var(ses, subject, function)


def answer_pattern(ses, pattern: str, limit: int = 20) -> Answer:
    """Why the facts matching a pattern hold (the deciding path of the first, along its
    last column), or why none does."""
    answer = ses.why(pattern, limit)
    if isinstance(answer, WhyNot):
        x = ses.explainer_for(answer.pred)
        why, steps = why_not_sentence(pattern, answer, ses.names(x))
        return Answer(f"why {pattern}", f"`{pattern}` does not hold: {why}", steps,
                      trees=[("", answer)], data={"query": pattern, "why_not": answer})
    first = answer[0]
    x = ses.explainer_for(first.pred)
    names = ses.names(x)
    shown = names.fact(first.pred, first.row)
    col = max(len(first.row) - 1, 0)
    text, steps, _ = value_sentence(f"`{shown}`", "", first, col, names, verb="holds")
    text = text.replace("holds  because", "holds because", 1).replace("holds :", "holds:", 1)
    more = len(answer) - 1
    if more:
        text += f" ({more} more fact{'s' if more != 1 else ''} match: --tree shows them all.)"
    return Answer(f"why {pattern}", text, steps, trees=[("", t) for t in answer],
                  data={"query": pattern, "proofs": list(answer)})
