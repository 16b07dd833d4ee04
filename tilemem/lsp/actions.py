"""Code actions and the commands they run.

* **Apply the pass** (printed IR): the solved program as a workspace edit of the whole
  document -- exactly what ``tilemem solve`` prints.  A hand-written DSL module is not
  rewritten (its solved form is printed IR, not the DSL it was written in): its action
  shows the solved program instead, as ``tilemem solve`` does.
The explanations are plain commands (the protocol's first form of a code action: a
title and a command), which every client runs.

* **Explain** a var: the full answer of ``tilemem why --tree`` in a document of its own.
* **Why not SPACE**: the answer of ``tilemem why --not SPACE``, likewise.

A document of its own is a file in a private temporary directory the client is asked
to show (``window/showDocument``); the command also returns its text.
"""
from __future__ import annotations

import os
import re
import tempfile
from typing import Any, Optional, Union

from lsprotocol import types

from tilemem.lsp.analysis import DocumentAnalysis, ProgramAnalysis
from tilemem.lsp.explain import answer, answer_not
from tilemem.lsp.hover import var_at
from tilemem.lsp.positions import whole_document

EXPLAIN, WHY_NOT, SHOW_SOLVED, STATUS = ("tilemem.explain", "tilemem.whyNot",
                                          "tilemem.showSolved", "tilemem.status")
COMMANDS = (EXPLAIN, WHY_NOT, SHOW_SOLVED, STATUS)


def _on_chip_spaces() -> tuple[str, ...]:
    from tilemem.tools.colors import SPACE_ORDER
    return tuple(s for s in SPACE_ORDER if s != "DDR")


def solved_text(pa: ProgramAnalysis) -> str:
    """The solved program as ``tilemem solve`` prints it."""
    from tilemem.tools.batch import with_newline
    return with_newline(pa.solution.text)


def code_actions(doc: DocumentAnalysis, current: Optional[DocumentAnalysis], lines: list[str],
                 params: types.CodeActionParams) -> list[Union[types.CodeAction, types.Command]]:
    """The actions at ``params.range``.  ``doc``: the analysis to answer from (the last
    that solved); ``current``: the analysis of the text the client has now (None while it
    is being solved) -- an edit is offered only from that one."""
    uri = params.text_document.uri
    out: list[Union[types.CodeAction, types.Command]] = []
    line = params.range.start.line + 1
    pa = (current or doc).program_at(line)
    verify_diags = [d for d in params.context.diagnostics if d.source == "tilemem verify"]
    if current is not None and pa is not None and pa.solution is not None:
        if current.reading == "ir":
            new = solved_text(pa)
            if new != current.text:
                out.append(types.CodeAction(
                    title="Apply the pass (tilemem solve)",
                    kind=types.CodeActionKind.QuickFix if verify_diags else
                    types.CodeActionKind.SourceFixAll,
                    diagnostics=verify_diags or None, is_preferred=bool(verify_diags),
                    edit=types.WorkspaceEdit(changes={uri: [types.TextEdit(
                        range=whole_document(current.text), new_text=new)]})))
        else:
            out.append(types.Command(
                title=f"Show {pa.name} solved (tilemem solve --program {pa.name})",
                command=SHOW_SOLVED, arguments=[uri, pa.name]))
    found = var_at(doc, lines, params.range.start)
    if found is not None and found.program.solution is not None:
        space = found.program.space_of(found.function, found.name)
        args: list[Any] = [uri, found.function, found.name]
        out.append(types.Command(title=f"Explain `{found.name}` (tilemem why)", command=EXPLAIN,
                                 arguments=args))
        if space is not None:
            for other in _on_chip_spaces():
                if other != space:
                    out.append(types.Command(title=f"Why is `{found.name}` not in {other}?",
                                             command=WHY_NOT, arguments=args + [other]))
    return out


# ----------------------------------------------------------------------------- commands


def _program(doc: DocumentAnalysis, function: str) -> Optional[ProgramAnalysis]:
    for pa in doc.programs:
        if pa.solution is not None and any(f.function.name == function for f in pa.functions):
            return pa
    return None


def explain_text(doc: DocumentAnalysis, function: str, var: str) -> Optional[str]:
    """The full answer (``tilemem why VAR --tree``)."""
    pa = _program(doc, function)
    ans = answer(pa, var, function) if pa is not None else None
    return None if ans is None else ans.render(width=100, tree=True) + "\n"


def why_not_text(doc: DocumentAnalysis, function: str, var: str, space: str) -> Optional[str]:
    """The answer of ``tilemem why VAR --not SPACE --tree``."""
    pa = _program(doc, function)
    ans = answer_not(pa, var, function, space) if pa is not None else None
    return None if ans is None else ans.render(width=100, tree=True) + "\n"


def show_solved_text(doc: DocumentAnalysis, program: str) -> Optional[str]:
    for pa in doc.programs:
        if pa.name == program and pa.solution is not None:
            return solved_text(pa)
    return None


def virtual_document(name: str, text: str) -> str:
    """Write ``text`` to a file of this user's private directory; its URI."""
    from pathlib import Path
    d = Path(tempfile.gettempdir()) / f"tilemem-lsp-{os.getuid() if hasattr(os, 'getuid') else 'user'}"
    d.mkdir(mode=0o700, exist_ok=True)
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", name)[:120]
    path = d / safe
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)
    return path.as_uri()
