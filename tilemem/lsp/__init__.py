"""``tilemem lsp``: a language server (LSP over stdio) for PyPTO programs.

It serves ``.pto`` files (PyPTO's printed IR) and Python modules holding ``@pl.program``
classes (the hand-written DSL; each program solved on its own, as ``tilemem solve``
does).  The pieces, one job each:

* :mod:`~tilemem.lsp.analysis` -- one version of a document read, solved and verified,
  with no LSP types in it (what every feature reads);
* :mod:`~tilemem.lsp.varindex` -- where each var of a function is defined and used;
* :mod:`~tilemem.lsp.positions` -- tilemem's 1-based positions as LSP ranges;
* :mod:`~tilemem.lsp.settings` -- the backend and options: the client's settings over
  ``[tool.tilemem]`` over the defaults;
* :mod:`~tilemem.lsp.documents` -- per-document state: debounced, off-loop analyses,
  an older version's result dropped when a newer edit arrived, the last good one kept;
* features: :mod:`~tilemem.lsp.diagnostics`, :mod:`~tilemem.lsp.hover`,
  :mod:`~tilemem.lsp.inlay`, :mod:`~tilemem.lsp.actions` (code actions and the
  commands they run), :mod:`~tilemem.lsp.navigation` (definition, references,
  document symbols);
* :mod:`~tilemem.lsp.server` -- the pygls server that wires them to the protocol.

pygls and lsprotocol are the ``lsp`` extra (``pip install 'tilemem[lsp]'``); nothing
else of tilemem imports this package.
"""
