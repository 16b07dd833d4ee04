"""The language server: pygls wiring of the features to the protocol.

Two worker threads keep the event loop free: one solves (one document version at a
time, debounced after edits), one answers questions that walk proofs (hover, explain).
Everything a handler on the loop does itself is a lookup in an analysis already made.
"""
from __future__ import annotations

import asyncio
import logging
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, Optional

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from tilemem import __version__
from tilemem.lsp import actions, diagnostics, hover, inlay, navigation
from tilemem.lsp.analysis import DocumentAnalysis, analyse
from tilemem.lsp.documents import DocumentState
from tilemem.lsp.settings import ClientSettings

log = logging.getLogger("tilemem.lsp")

#: a worker's stack: deep programs are read and printed with a raised recursion limit
WORKER_STACK = 64 * 1024 * 1024
#: how long a question waits for the document's first analysis (a large file solving)
FIRST_ANALYSIS_WAIT = 600.0
STATUS = "tilemem/status"


class TilememServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("tilemem", __version__,
                         text_document_sync_kind=types.TextDocumentSyncKind.Incremental)
        self.client_settings = ClientSettings()
        self.docs: dict[str, DocumentState] = {}
        saved = threading.stack_size()
        threading.stack_size(WORKER_STACK)
        try:
            self.solver = ThreadPoolExecutor(1, thread_name_prefix="tilemem-solve")
            self.explainer = ThreadPoolExecutor(1, thread_name_prefix="tilemem-explain")
            # the threads start now, with the stack size set above
            self.solver.submit(lambda: None).result()
            self.explainer.submit(lambda: None).result()
        finally:
            threading.stack_size(saved)

    # ------------------------------------------------------------------ analyses

    def state(self, uri: str) -> Optional[DocumentState]:
        return self.docs.get(uri)

    def document_changed(self, uri: str, delay: float) -> None:
        """Take the client's current text of ``uri`` and analyse it after ``delay``."""
        doc = self.workspace.get_text_document(uri)
        st = self.docs.get(uri)
        if st is None:
            st = self.docs[uri] = DocumentState(uri, to_fs_path(uri) or uri)
        st.edited(doc.version, doc.source)
        asyncio.ensure_future(self._analyse(st, st.version, delay))

    async def _analyse(self, st: DocumentState, version: Optional[int], delay: float) -> None:
        if delay > 0:
            await asyncio.sleep(delay)           # debounce: a newer edit supersedes this one
        if not st.is_latest(version):
            return
        text, settings = st.text, self.client_settings
        loop = asyncio.get_running_loop()

        def run() -> Optional[DocumentAnalysis]:
            if not st.is_latest(version):        # superseded while waiting for the worker
                return None
            return analyse(text, st.path, settings, version, workspaces=st.workspaces)
        result = await loop.run_in_executor(self.solver, run)
        if result is None or not st.accept(result):
            return
        self.publish(st, result)
        # hovers answer from the explanation session: build it now, while the user reads
        await loop.run_in_executor(self.explainer, _warm, st, result)

    def publish(self, st: DocumentState, result: DocumentAnalysis) -> None:
        self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(
            uri=st.uri, version=result.version, diagnostics=diagnostics.diagnostics(result)))
        self.protocol.notify(STATUS, {"uri": st.uri, "version": result.version, **result.status()})
        caps = self.client_capabilities.workspace
        if caps and caps.inlay_hint and caps.inlay_hint.refresh_support:
            self.workspace_inlay_hint_refresh(None)

    async def answering(self, uri: str) -> Optional[DocumentState]:
        """The document's state once it has been analysed at least once."""
        st = self.docs.get(uri)
        if st is None:
            return None
        if not st.analysed.is_set():
            try:
                await asyncio.wait_for(st.analysed.wait(), FIRST_ANALYSIS_WAIT)
            except asyncio.TimeoutError:
                return None
        return st

    async def in_explainer(self, fn: Callable[..., Any], *args: Any) -> Any:
        return await asyncio.get_running_loop().run_in_executor(self.explainer, fn, *args)

    def settings_changed(self, options: Any) -> None:
        self.client_settings = ClientSettings.from_options(options, self.client_settings)
        for uri in list(self.docs):
            self.document_changed(uri, 0)

    def shutdown_workers(self) -> None:
        for st in self.docs.values():
            st.close()
        self.solver.shutdown(wait=False, cancel_futures=True)
        self.explainer.shutdown(wait=False, cancel_futures=True)


def _warm(st: DocumentState, result: DocumentAnalysis) -> None:
    for pa in result.programs:
        if not st.is_latest(result.version):
            return
        try:
            pa.explained(lambda sol: sol.session().phase3())
        except Exception:                        # a hover will say what fails
            log.debug("warming the explanation session failed", exc_info=True)


def build() -> TilememServer:
    """The server with every feature registered."""
    ls = TilememServer()

    @ls.feature(types.INITIALIZE)
    def initialize(ls: TilememServer, params: types.InitializeParams) -> None:
        ls.client_settings = ClientSettings.from_options(params.initialization_options)

    @ls.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: TilememServer, params: types.DidOpenTextDocumentParams) -> None:
        ls.document_changed(params.text_document.uri, 0)

    @ls.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: TilememServer, params: types.DidChangeTextDocumentParams) -> None:
        ls.document_changed(params.text_document.uri, ls.client_settings.debounce)

    @ls.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: TilememServer, params: types.DidSaveTextDocumentParams) -> None:
        st = ls.state(params.text_document.uri)
        if st is not None and st.current is None:
            ls.document_changed(params.text_document.uri, 0)

    @ls.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: TilememServer, params: types.DidCloseTextDocumentParams) -> None:
        st = ls.docs.pop(params.text_document.uri, None)
        if st is not None:
            st.close()
        ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(
            uri=params.text_document.uri, diagnostics=[]))

    @ls.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    def did_change_configuration(ls: TilememServer, params: types.DidChangeConfigurationParams) -> None:
        ls.settings_changed(params.settings)

    @ls.feature(types.SHUTDOWN)
    def shutdown(ls: TilememServer, params: None) -> None:
        ls.shutdown_workers()

    @ls.feature(types.TEXT_DOCUMENT_HOVER)
    async def on_hover(ls: TilememServer, params: types.HoverParams) -> Optional[types.Hover]:
        st = await ls.answering(params.text_document.uri)
        doc = st.answering() if st else None
        if doc is None:
            return None
        return await ls.in_explainer(hover.hover, doc, st.lines, params.position,
                                     params.text_document.uri)

    @ls.feature(types.TEXT_DOCUMENT_INLAY_HINT, types.InlayHintOptions(resolve_provider=False))
    async def on_inlay_hint(ls: TilememServer, params: types.InlayHintParams) -> list[types.InlayHint]:
        st = await ls.answering(params.text_document.uri)
        doc = st.answering() if st else None
        if doc is None:
            return []
        stale = doc.version != st.version
        return inlay.inlay_hints(doc, params.range, st.lines if stale else None)

    @ls.feature(types.TEXT_DOCUMENT_CODE_ACTION, types.CodeActionOptions(
        code_action_kinds=[types.CodeActionKind.QuickFix, types.CodeActionKind.SourceFixAll,
                           types.CodeActionKind.Source]))
    async def on_code_action(ls: TilememServer, params: types.CodeActionParams):
        st = await ls.answering(params.text_document.uri)
        doc = st.answering() if st else None
        if doc is None:
            return []
        return actions.code_actions(doc, st.current, st.lines, params)

    @ls.feature(types.TEXT_DOCUMENT_DEFINITION)
    async def on_definition(ls: TilememServer, params: types.DefinitionParams):
        st = await ls.answering(params.text_document.uri)
        doc = st.answering() if st else None
        return navigation.definition(doc, st.lines, params.position,
                                     params.text_document.uri) if doc else None

    @ls.feature(types.TEXT_DOCUMENT_REFERENCES)
    async def on_references(ls: TilememServer, params: types.ReferenceParams):
        st = await ls.answering(params.text_document.uri)
        doc = st.answering() if st else None
        return navigation.references(doc, st.lines, params.position, params.text_document.uri,
                                     params.context.include_declaration) if doc else None

    @ls.feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    async def on_document_symbol(ls: TilememServer, params: types.DocumentSymbolParams):
        st = await ls.answering(params.text_document.uri)
        doc = st.latest if st else None
        return navigation.document_symbols(doc) if doc else []

    @ls.command(actions.EXPLAIN)
    async def explain(ls: TilememServer, uri: str, function: str, var: str):
        return await _show(ls, uri, f"why-{var}.txt",
                           lambda doc: actions.explain_text(doc, function, var))

    @ls.command(actions.WHY_NOT)
    async def why_not(ls: TilememServer, uri: str, function: str, var: str, space: str):
        return await _show(ls, uri, f"why-{var}-not-{space}.txt",
                           lambda doc: actions.why_not_text(doc, function, var, space))

    @ls.command(actions.SHOW_SOLVED)
    async def show_solved(ls: TilememServer, uri: str, program: str):
        return await _show(ls, uri, f"{program}.solved.pto",
                           lambda doc: actions.show_solved_text(doc, program))

    @ls.command(actions.STATUS)
    async def status(ls: TilememServer, uri: str):
        st = await ls.answering(uri)
        doc = st.latest if st else None
        return {"uri": uri, "version": doc.version, **doc.status()} if doc else None

    return ls


async def _show(ls: TilememServer, uri: str, name: str,
                make: Callable[[DocumentAnalysis], Optional[str]]) -> Optional[dict]:
    """Run a command that makes a text: show it in a document of its own; return it."""
    st = await ls.answering(uri)
    doc = st.answering() if st else None
    if doc is None:
        return None
    text = await ls.in_explainer(make, doc)
    if text is None:
        return None
    stem = (st.path.rsplit("/", 1)[-1] or "input")
    target = actions.virtual_document(f"{stem}-{name}", text)
    ls.window_show_document(types.ShowDocumentParams(uri=target, take_focus=True))
    return {"uri": target, "text": text}


def serve() -> None:
    """Serve over stdin/stdout until the client says exit."""
    import gc
    gc.enable()           # a long-running process: the CLI turns the collector off
    build().start_io()
