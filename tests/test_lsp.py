"""``tilemem lsp`` end to end: the server started as a user's editor starts it
(``tilemem lsp`` over stdio) and driven by a real LSP client (pytest-lsp, on pygls).

Every wait is for an event (the server's ``tilemem/status`` notification after each
analysis), bounded by a generous timeout for a loaded machine; nothing is timed.
"""
from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest

pytest.importorskip("pygls")
pytest_lsp = pytest.importorskip("pytest_lsp")

from lsprotocol import types  # noqa: E402
from pygls.uris import to_fs_path  # noqa: E402
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities  # noqa: E402

from cli_helpers import CORPUS, REPO, SHARED, run, tilemem_command  # noqa: E402

#: how long an analysis may take before a test gives up (a loaded 2-core machine)
WAIT = 600.0
GOLDEN = CORPUS / "test_matmul_gets_acc_1" / "before.pto"
EXAMPLE_PTO = REPO / "examples" / "matmul_bias_relu.pto"
EXAMPLE_PY = REPO / "examples" / "kernels.py"
LARGEST = SHARED / "corpus-models" / "pypto_lib_models_deepseek_v4_flash_mtp_decode_fwd_mtp_950_001" / "before.pto"

STATUSES: list = []
REFRESHES: list = []


def _field(obj, name):
    return obj[name] if isinstance(obj, dict) else getattr(obj, name, None)


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[*tilemem_command(), "lsp"]),
                    scope="module")
async def client(lsp_client: LanguageClient):
    @lsp_client.feature("tilemem/status")
    def on_status(params):
        STATUSES.append(params)

    @lsp_client.feature(types.WORKSPACE_INLAY_HINT_REFRESH)
    def on_refresh(params):
        REFRESHES.append(params)

    caps = client_capabilities("neovim")
    await lsp_client.initialize_session(types.InitializeParams(
        capabilities=caps, initialization_options={"debounce": 0.05}))
    yield
    await lsp_client.shutdown_session()


async def analysed(uri: str, version: int):
    """The status the server sent once it analysed ``version`` of ``uri``."""
    async def wait():
        while True:
            for s in reversed(STATUSES):
                if _field(s, "uri") == uri and _field(s, "version") == version:
                    return s
            await asyncio.sleep(0.05)
    return await asyncio.wait_for(wait(), WAIT)


def _open(client: LanguageClient, path: Path, text: str, language: str = "pto") -> str:
    uri = path.as_uri()
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        text_document=types.TextDocumentItem(uri=uri, language_id=language, version=1, text=text)))
    return uri


def _change(client: LanguageClient, uri: str, version: int, text: str) -> None:
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)]))


def _at(text: str, needle: str, line_has: str = "") -> types.Position:
    """The position of the first ``needle`` on the first line holding ``line_has``."""
    for i, line in enumerate(text.splitlines()):
        if line_has in line and needle in line:
            return types.Position(line=i, character=line.index(needle))
    raise AssertionError(f"{needle!r} not in the text")


async def _hover(client, uri, pos) -> str:
    h = await asyncio.wait_for(client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=pos)), WAIT)
    assert h is not None
    return h.contents.value


async def _hints(client, uri, text) -> list[types.InlayHint]:
    n = len(text.splitlines())
    return await asyncio.wait_for(client.text_document_inlay_hint_async(types.InlayHintParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        range=types.Range(start=types.Position(line=0, character=0),
                          end=types.Position(line=n, character=0)))), WAIT)


def _label(h: types.InlayHint) -> str:
    return h.label if isinstance(h.label, str) else "".join(p.value for p in h.label)


def _apply(text: str, edits: list[types.TextEdit]) -> str:
    """Apply LSP text edits (ASCII text) to ``text``."""
    lines = text.split("\n")
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line) + 1)

    def off(p: types.Position) -> int:
        return min(offsets[min(p.line, len(lines))] + p.character, len(text))
    for e in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        text = text[:off(e.range.start)] + e.new_text + text[off(e.range.end):]
    return text


def _copy(src: Path, tmp_path: Path) -> tuple[Path, str]:
    dst = tmp_path / src.name
    shutil.copy(src, dst)
    return dst, dst.read_text()


async def _opened(client: LanguageClient, src: Path, tmp_path: Path, language: str = "pto"):
    """A copy of ``src`` opened in the client and analysed: (path, text, uri, status)."""
    path, text = _copy(src, tmp_path)
    uri = _open(client, path, text, language)
    return path, text, uri, await analysed(uri, 1)


# ----------------------------------------------------------------------------- the golden


needs_corpus = pytest.mark.skipif(not GOLDEN.exists(), reason="needs ../shared/corpus")


@needs_corpus
@pytest.mark.asyncio(loop_scope="module")
async def test_hover_on_z_tile_says_acc_and_why(client: LanguageClient, tmp_path):
    path, text, uri, status = await _opened(client, GOLDEN, tmp_path)
    assert _field(status, "reading") == "printed IR"
    md = await _hover(client, uri, _at(text, "z_tile", "z_tile:"))
    assert "**Acc**" in md
    # the paragraph of `tilemem why`, its deciding line a link to the document
    assert "`z_tile` is in Acc because of" in md and "matmul" in md
    assert f"]({uri}#L10)" in md


@needs_corpus
@pytest.mark.asyncio(loop_scope="module")
async def test_inlay_hints_show_every_tile_space_and_the_moves(client: LanguageClient, tmp_path):
    import tilemem
    path, text, uri, _ = await _opened(client, GOLDEN, tmp_path)
    hints = await _hints(client, uri, text)
    labels = {_label(h) for h in hints}
    sol = tilemem.solve(text, path=str(path))
    lines = text.splitlines()
    for fn, spaces in sol.spaces.items():
        for var, space in spaces.items():
            at = [h for h in hints if _label(h) == f": {space}"
                  and lines[h.position.line][:h.position.character].endswith(var)]
            assert at, f"no hint ': {space}' after {var}"
    for m in sol.moves:
        assert f"{m.name} = move({m.producer}, {m.target});" in labels
        [h] = [h for h in hints if _label(h).startswith(m.name + " =")]
        assert h.position.line + 1 == m.consumer_line


@needs_corpus
@pytest.mark.asyncio(loop_scope="module")
async def test_code_action_applies_the_pass_as_tilemem_solve_does(client: LanguageClient, tmp_path):
    path, text, uri, _ = await _opened(client, GOLDEN, tmp_path)
    diags = client.diagnostics[uri]
    assert [d.code for d in diags] == ["operand-space", "operand-space"]   # before the pass
    acts = await asyncio.wait_for(client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri), range=diags[0].range,
        context=types.CodeActionContext(diagnostics=diags))), WAIT)
    [apply] = [a for a in acts if a.title.startswith("Apply the pass")]
    assert apply.kind == types.CodeActionKind.QuickFix
    new = _apply(text, apply.edit.changes[uri])
    solved = run("solve", path)
    assert solved.returncode == 0
    assert new == solved.stdout
    # the result, opened as the new text, verifies: no diagnostics left
    _change(client, uri, 2, new)
    await analysed(uri, 2)
    assert list(client.diagnostics[uri]) == []


@needs_corpus
@pytest.mark.asyncio(loop_scope="module")
async def test_explain_and_why_not_answer_as_tilemem_why(client: LanguageClient, tmp_path):
    path, text, uri, _ = await _opened(client, GOLDEN, tmp_path)
    pos = _at(text, "z_tile", "z_tile:")
    acts = await asyncio.wait_for(client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri), range=types.Range(start=pos, end=pos),
        context=types.CodeActionContext(diagnostics=[]))), WAIT)
    titles = [a.title for a in acts]
    assert "Explain `z_tile` (tilemem why)" in titles
    assert "Why is `z_tile` not in Vec?" in titles and "Why is `z_tile` not in Acc?" not in titles
    explain = next(a for a in acts if a.title.startswith("Explain"))
    res = await asyncio.wait_for(client.workspace_execute_command_async(types.ExecuteCommandParams(
        command=explain.command, arguments=explain.arguments)), WAIT)
    want = run("why", path, "z_tile", "--tree", "--function", "main_incore_0")
    assert want.returncode == 0
    assert _field(res, "text") == want.stdout
    assert client.shown_documents and client.shown_documents[-1].uri == _field(res, "uri")
    assert Path(to_fs_path(_field(res, "uri"))).read_text() == want.stdout
    why_not = next(a for a in acts if a.title == "Why is `z_tile` not in Vec?")
    res = await asyncio.wait_for(client.workspace_execute_command_async(types.ExecuteCommandParams(
        command=why_not.command, arguments=why_not.arguments)), WAIT)
    want = run("why", path, "z_tile", "--not", "Vec", "--tree", "--function", "main_incore_0")
    assert _field(res, "text") == want.stdout


# ----------------------------------------------------------------------------- edits


@pytest.mark.asyncio(loop_scope="module")
async def test_edit_then_syntax_error_mid_edit_keeps_the_last_good_hints(client: LanguageClient,
                                                                         tmp_path):
    path, text, uri, _ = await _opened(client, EXAMPLE_PTO, tmp_path)
    good = await _hints(client, uri, text)
    assert any(_label(h) == ": Acc" for h in good)
    # half-typed: a call left open on the matmul's line
    lines = text.split("\n")
    k = next(i for i, l in enumerate(lines) if "pl.tile.matmul(" in l)
    broken_lines = list(lines)
    broken_lines[k] = broken_lines[k].split("pl.tile.matmul(")[0] + "pl.tile.matmul(a_tile,"
    broken = "\n".join(broken_lines)
    _change(client, uri, 2, broken)
    status = await analysed(uri, 2)
    errors = [d for d in client.diagnostics[uri] if d.severity == types.DiagnosticSeverity.Error]
    assert errors and errors[0].code == "input-error"
    assert not _field(status, "programs") or not _field(_field(status, "programs")[0], "solved")
    kept = await _hints(client, uri, broken)
    # the hints of the last version that solved stay, but none on the edited line
    assert {(h.position.line, _label(h)) for h in kept} == \
        {(h.position.line, _label(h)) for h in good if h.position.line != k}
    md = await _hover(client, uri, _at(broken, "a_tile", "a_tile:"))
    assert "**Mat**" in md or "**Vec**" in md          # answered from the last good version
    # the edit completed: solved again, the hints of the new text
    _change(client, uri, 3, text)
    await analysed(uri, 3)
    assert [d for d in client.diagnostics[uri] if d.severity == types.DiagnosticSeverity.Error] == []
    again = await _hints(client, uri, text)
    assert {(h.position.line, _label(h)) for h in again} == {(h.position.line, _label(h)) for h in good}


@pytest.mark.asyncio(loop_scope="module")
async def test_an_edit_changes_the_answer(client: LanguageClient, tmp_path):
    """Retargeting a load from Vec to Mat: its hint and hover follow the edit."""
    src = "\n".join([
        "# pypto.program: P",
        "import pypto.language as pl",
        "",
        "@pl.program",
        "class P:",
        "    @pl.function(type=pl.FunctionType.InCore)",
        "    def k(x: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:",
        "        a: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec)",
        "        out: pl.Tensor[[16, 16], pl.FP32] = pl.tile.store(a, [0, 0], out)",
        "        return out",
        ""])
    path = tmp_path / "k.pto"
    path.write_text(src)
    uri = _open(client, path, src)
    await analysed(uri, 1)
    assert ": Vec" in {_label(h) for h in await _hints(client, uri, src)}
    # several quick edits: only the last is answered (the debounce drops the others)
    edited = src.replace("target_memory=pl.Mem.Vec", "target_memory=pl.Mem.Mat").replace(
        "pl.FP32, pl.Mem.Vec]", "pl.FP32, pl.Mem.Mat]")
    _change(client, uri, 2, src.replace("Vec", "Ve"))
    _change(client, uri, 3, edited)
    await analysed(uri, 3)
    assert ": Mat" in {_label(h) for h in await _hints(client, uri, edited)}
    md = await _hover(client, uri, _at(edited, "a", "a: pl.Tile"))
    assert "**Mat**" in md and "target_memory" in md


# ----------------------------------------------------------------------------- DSL modules


@pytest.mark.asyncio(loop_scope="module")
async def test_dsl_module_programs_symbols_definition_references(client: LanguageClient, tmp_path):
    path, text, uri, status = await _opened(client, EXAMPLE_PY, tmp_path, "python")
    assert _field(status, "reading") == "DSL"
    assert [_field(p, "name") for p in _field(status, "programs")] == ["MatmulBiasRelu", "KLoopMatmul"]
    syms = await asyncio.wait_for(client.text_document_document_symbol_async(
        types.DocumentSymbolParams(text_document=types.TextDocumentIdentifier(uri=uri))), WAIT)
    assert [(s.name, [c.name for c in s.children]) for s in syms] == \
        [("MatmulBiasRelu", ["kernel", "main"]), ("KLoopMatmul", ["kernel", "main"])]
    use = _at(text, "c_tile", "s_tile = pl.add(c_tile")
    use = types.Position(line=use.line, character=text.splitlines()[use.line].index("c_tile,"))
    [loc] = await asyncio.wait_for(client.text_document_definition_async(types.DefinitionParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=use)), WAIT)
    assert loc.range.start == _at(text, "c_tile", "c_tile = pl.matmul")
    refs = await asyncio.wait_for(client.text_document_references_async(types.ReferenceParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=use,
        context=types.ReferenceContext(include_declaration=True))), WAIT)
    assert sorted(r.range.start.line + 1 for r in refs) == [29, 31]
    md = await _hover(client, uri, _at(text, "a_tile", "c_tile = pl.matmul(a_tile"))
    assert "**Mat**" in md
    assert "Move inserted before this statement:** `a_tile_Left = tile.move(a_tile, Left)`" in md
    # no program class: a Python module the server has nothing to say about
    plain = tmp_path / "plain.py"
    plain.write_text("x = 1\n")
    puri = _open(client, plain, "x = 1\n", "python")
    st = await analysed(puri, 1)
    assert _field(st, "reading") is None and list(client.diagnostics[puri]) == []


@pytest.mark.asyncio(loop_scope="module")
async def test_contract_warnings_and_backend_from_pyproject(client: LanguageClient, tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.tilemem]\nbackend = "910B"\n')
    path, text, uri, status = await _opened(client, EXAMPLE_PY, tmp_path, "python")
    assert _field(status, "backend") == "910B"
    assert "pyproject.toml" in _field(status, "backendFrom")


# ----------------------------------------------------------------------------- a large file


@pytest.mark.slow
@pytest.mark.skipif(not LARGEST.exists(), reason="needs ../shared/corpus-models")
@pytest.mark.asyncio(loop_scope="module")
async def test_the_21000_line_kernel_is_served_without_blocking(client: LanguageClient, tmp_path):
    path, text = _copy(LARGEST, tmp_path)
    assert len(text.splitlines()) > 20000
    uri = _open(client, path, text)
    # the server answers while it solves: symbols of a small file opened meanwhile
    small, small_text = _copy(EXAMPLE_PTO, tmp_path)
    suri = _open(client, small, small_text)
    await analysed(suri, 1)
    await analysed(uri, 1)
    hints = await _hints(client, uri, text)
    assert len([h for h in hints if _label(h).startswith(": ")]) > 1000
    h = hints[len(hints) // 2]
    line = text.splitlines()[h.position.line]
    var = line[:h.position.character].split()[-1].rstrip(":")
    md = await _hover(client, uri, types.Position(line=h.position.line,
                                                  character=h.position.character - len(var)))
    assert f"**`{var}`**" in md
    # an edit mid-file: the new version is solved, its diagnostics published
    lines = text.split("\n")
    lines.insert(len(lines) // 2, "")
    _change(client, uri, 2, "\n".join(lines))
    st = await analysed(uri, 2)
    assert _field(_field(st, "programs")[0], "solved")
