"""Why a tile var is not in a memory space (``tilemem why VAR --not SPACE``): the space
it is in and why, then the rule that would have put it in SPACE and the one fact of
this program that prevents it, in the pass's words."""
from __future__ import annotations

import re
from typing import Optional

from tilemem.datalog import Atom, Negation, Var
from tilemem.explain.names import Names
from tilemem.explain.nodes import _rule_loc
from tilemem.explain.paragraph import deciding_path, reasoned_clauses, why_not_sentence
from tilemem.explain.placement import NO_SITE, own_sentence
from tilemem.explain.reasons import reason, rule_reason
from tilemem.explain.rendering import Answer

#: the most lines a ``--not`` answer prints (without --tree)
NOT_LINES = 8


def answer_not(ses, var: str, space: str, function: Optional[str] = None,
               depth: int = 3) -> Answer:
    """Why a tile var is not in ``space``: the space it is in and why, then the rule that
    would have put it in ``space`` and the fact of this program that prevents it."""
    vid = ses.resolve_var(var, function)
    x = ses.phase3()
    names = ses.names(x)
    fn = vid.partition(":")[0]
    shown = names.subject(vid)
    names = names.about(fn)
    wn = x.why_not("space", (vid, space), depth=depth, functions=x.scope.around(fn))
    data = {"var": vid, "space_asked": space, "why_not": wn}
    if wn.holds:
        return Answer(f"why {vid} --not {space}", f"{shown} is in {space}.", [], trees=[("", wn)],
                      data=data)
    own = own_sentence(x, vid, shown, names, clauses_max=1)
    if own is None:                  # neither a space nor a "none": no site the rules resolve
        _, steps = why_not_sentence(shown, wn, names)
        return Answer(f"why {vid} --not {space}", f"{shown} is not in {space}: {NO_SITE}",
                      steps, trees=[("", wn)], data=data, max_lines=NOT_LINES)
    sen, tree, actual = own
    path = deciding_path(tree, 1 if actual else 2)
    clauses = reasoned_clauses(path, names)
    text = f"{shown} is not in {space}: {sen.text}"
    # the deciding rule said of SPACE only where the space comes from the program or the
    # op table (a kwarg, an op's fixed space), never from a rule's own constant (the
    # default Vec of a load nobody asks for)
    swappable = path[-1][0].kind in ("input", "rule_fact")
    would = _would_put(x, vid, space, names, clauses, actual, swappable)
    if would is not None:
        text += " " + would
    elif actual is not None:
        text += f" No rule of the pass gives it {space} here."
    text = re.sub(r" \(\d+ more steps?: --tree\.\)", "", text)
    return Answer(f"why {vid} --not {space}", text, sen.steps, trees=[("", wn)], data=data,
                  max_lines=NOT_LINES)


def _would_put(x, vid: str, space: str, names: Names, clauses: list, actual: Optional[str],
               swappable: bool = False) -> Optional[str]:
    """Which rule would have written ``space`` at the site that decides ``vid`` and the
    one fact of this program that prevents it, in words; None when no rule that could
    says so.  The rules tried: one that fits the var in all but the space (a kwarg's
    value, the op's fixed space, the demand), else the rule that decided the var, said
    of ``space`` (the loop would have to yield it in ``space``)."""
    sites = [q for _, q in x.rel.match("site", (vid, None))]
    if not sites:
        return None
    fn = vid.partition(":")[0]
    wn = x.why_not("space_written", (vid, max(sites), space), depth=3,
                   functions=x.scope.around(fn))

    table = {f.head.pred for f in x.rules.facts}     # relations of the op table

    def on_the_space(c) -> bool:
        """The rule fails only where it names the space: in all else it fits the var
        (an op-table relation that has no row for the op with any space is a rule about
        other ops: `tile.slice` has no fixed output space at all)."""
        head_space = c.rule.head.args[2]
        if not (isinstance(c.failed, (Atom, Negation)) and isinstance(head_space, Var) and
                head_space.name in (c.failed.names() if hasattr(c.failed, "names") else set())):
            return False
        return not (isinstance(c.failed, Atom) and c.failed.pred in table and not c.near)
    first = clauses[0] if clauses else None
    here = _here(first, actual, clauses[-1] if clauses else None)
    for c in [c for c in wn.candidates if on_the_space(c)]:
        would = rule_reason(c.rule, {**c.head_env, **c.env}, names)
        if would is None:
            continue
        block = _blocking_words(c, names)
        block = here if block is None or first is not None and block == first.text \
            else f"here instead, {block}"
        if block is None:
            continue
        return f"For {space}, the pass would need: “{would}” ({_rule_loc(c.rule)}); {block}."
    if first is None or actual is None or not swappable:
        return None
    for c in clauses:                  # the first reason on the path that names the space
        said = reason(c.node, names, swap={actual: space})
        if said is not None and not said.missing and said.text != c.text:
            return f"For {space}, the pass would need: “{said.text}” ({_rule_loc(c.node.rule)}); {here}."
    return None


def _here(first, actual: Optional[str], origin=None) -> Optional[str]:
    """What this program has instead: where the space it has comes from (``origin``, the
    last reason of its deciding path) when the answer has not said it, else the
    deciding line and the space it gives, as said."""
    if first is None:
        return None
    if origin is not None and origin is not first and origin.line is not None:
        return f"here instead, line {origin.line}: {origin.text}"
    gives = f"gives it {actual}" if actual else "leaves it without a space"
    return f"here, line {first.line} {gives}, as said" if first.line is not None \
        else f"here, the rule above {gives}"


def _blocking_words(c, names: Names, depth: int = 2) -> Optional[str]:
    """The fact of the program that stops candidate rule ``c``, in words: the reason of
    what holds in its place (a near miss, a fact a negation finds), else the same for
    the rule below that got furthest."""
    for node in [*c.near, *c.blocking]:
        r = reason(node, names) if node.kind == "derived" else None
        if r is not None and not r.missing:
            return r.text
    if depth > 1 and c.sub is not None and c.sub.candidates:
        return _blocking_words(c.sub.candidates[0], names, depth - 1)
    return None
