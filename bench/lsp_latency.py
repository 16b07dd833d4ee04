"""Latency of the language server as an editor sees it (issue #30).

    python bench/lsp_latency.py                       # golden, dspark, mtp
    python bench/lsp_latency.py --rows golden,dspark --edits 5 --hovers 20

``tilemem lsp`` (the console script next to this Python) is started as an editor starts
it and driven over stdio by a pygls client.  Per kernel (inputs from ``../shared``; a row
whose input is absent is skipped):

* **first analysis**: open -> the server's ``tilemem/status`` for version 1 (read, solved,
  verified, diagnostics published);
* **hover**: a hover request on a tile var -> its answer, once the document is solved and
  its explanation session built (one untimed hover first); median and worst of
  ``--hovers`` vars spread over the file;
* **diagnostics after an edit**: a ``didChange`` (a blank appended to a line inside an
  InCore function's body, the debounce set to 0) -> the ``publishDiagnostics`` of that
  version; median and worst of ``--edits`` edits, each on another line.  Between two
  edits a hover waits for the server to be idle (it queues behind the explanation
  session the previous edit rebuilds), so edits do not overlap.

* **edit CPU**: the same edits analysed in process (``tilemem.lsp.analysis.analyse`` with
  the document's workspaces), the CPU seconds of each (``time.thread_time``): the figure a
  busy machine inflates least (wall times above include waiting for a core).

Targets: hover <= 50 ms once solved; diagnostics after an edit <= 0.3 s on the 1,746-line
kernel.  Nothing asserts a time: it prints a Markdown table for bench/RESULTS.md.
"""
from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from pathlib import Path

from lsprotocol import types
from pygls.lsp.client import LanguageClient

REPO = Path(__file__).resolve().parents[1]
ROWS = {
    "golden": "corpus/test_matmul_gets_acc_1/before.pto",
    "dspark": "corpus-models/pypto_lib_models_deepseek_v4_flash_dspark_decode_swa_910B_002/before.pto",
    "mtp": "corpus-models/pypto_lib_models_deepseek_v4_flash_mtp_decode_fwd_mtp_950_001/before.pto",
}
BACKENDS = {"golden": None, "dspark": "910B", "mtp": "950"}
WAIT = 900.0


def server_command() -> list[str]:
    script = Path(sys.executable).with_name("tilemem")
    return [str(script), "lsp"] if script.exists() else [sys.executable, "-m", "tilemem", "lsp"]


class Probe:
    """A client that notes when each version's diagnostics arrived."""

    def __init__(self) -> None:
        self.client = LanguageClient("tilemem-bench", "1")
        self.published: dict[tuple[str, int], float] = {}

        @self.client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def on_diagnostics(params: types.PublishDiagnosticsParams) -> None:
            if params.version is not None:
                self.published.setdefault((params.uri, params.version), time.perf_counter())

        @self.client.feature("tilemem/status")
        def on_status(params) -> None:
            pass

    async def start(self, backend) -> None:
        await self.client.start_io(*server_command())
        await self.client.initialize_async(types.InitializeParams(
            capabilities=types.ClientCapabilities(),
            initialization_options={"debounce": 0, "backend": backend or "none"}))
        self.client.initialized(types.InitializedParams())

    async def published_at(self, uri: str, version: int) -> float:
        deadline = time.perf_counter() + WAIT
        while (uri, version) not in self.published:
            if time.perf_counter() > deadline:
                raise TimeoutError(f"no diagnostics for version {version}")
            await asyncio.sleep(0.002)
        return self.published[(uri, version)]

    async def hover(self, uri: str, pos: types.Position) -> float:
        t = time.perf_counter()
        h = await self.client.text_document_hover_async(types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=pos))
        dt = time.perf_counter() - t
        if h is None:
            raise RuntimeError(f"no hover at {pos}")
        return dt

    async def stop(self) -> None:
        await self.client.shutdown_async(None)
        self.client.exit(None)
        await self.client.stop()


async def measure(row: str, path: Path, hovers: int, edits: int) -> dict:
    text = path.read_text()
    lines = text.split("\n")
    uri = path.resolve().as_uri()
    probe = Probe()
    await probe.start(BACKENDS[row])
    try:
        t0 = time.perf_counter()
        probe.client.text_document_did_open(types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="pto", version=1, text=text)))
        first = await probe.published_at(uri, 1) - t0
        hints = await probe.client.text_document_inlay_hint_async(types.InlayHintParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=types.Range(start=types.Position(line=0, character=0),
                              end=types.Position(line=len(lines), character=0))))
        tiles = [h for h in hints if isinstance(h.label, str) and h.label.startswith(": ")]
        picks = [tiles[i * len(tiles) // hovers] for i in range(min(hovers, len(tiles)))]
        at = [types.Position(line=h.position.line, character=h.position.character - 1) for h in picks]
        await probe.hover(uri, at[0])                      # waits for the explanation session
        hover_times = [await probe.hover(uri, p) for p in at]
        # edits: a blank at the end of a body line of an InCore function, each elsewhere
        body = sorted({h.position.line for h in tiles})
        edit_lines = [body[(i + 1) * len(body) // (edits + 1)] for i in range(edits)]
        edit_times = []
        version = 1
        for line in edit_lines:
            version += 1
            lines[line] += " "
            t = time.perf_counter()
            probe.client.text_document_did_change(types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text="\n".join(lines))]))
            edit_times.append(await probe.published_at(uri, version) - t)
            await probe.hover(uri, at[0])                  # idle again before the next edit
    finally:
        await probe.stop()
    return dict(row=row, lines=len(text.splitlines()), first=first, hovers=hover_times,
                edits=edit_times)


def edit_cpu(path: Path, backend, edits: int) -> list[float]:
    """CPU seconds of analysing each edit in process (see the module docstring)."""
    from tilemem.lsp.analysis import Workspaces, analyse
    from tilemem.lsp.settings import ClientSettings
    text = path.read_text()
    lines = text.split("\n")
    settings = ClientSettings(backend=backend or "none")
    ws = Workspaces()
    first = analyse(text, str(path), settings, 1, workspaces=ws)
    pa = first.programs[0]
    body = sorted({s.line for f in pa.functions if f.function.is_incore
                   for spans in pa.vars_of(f.function, first.lines).defs.values() for s in spans})
    out = []
    for i in range(edits):
        lines[body[(i + 1) * len(body) // (edits + 1)] - 1] += " "
        t = time.thread_time()
        analyse("\n".join(lines), str(path), settings, i + 2, workspaces=ws)
        out.append(time.thread_time() - t)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", default=",".join(ROWS))
    ap.add_argument("--hovers", type=int, default=20)
    ap.add_argument("--edits", type=int, default=5)
    ap.add_argument("--shared", type=Path, default=REPO.parent / "shared",
                    help="where the corpora are (default: ../shared)")
    args = ap.parse_args()
    results = []
    for row in args.rows.split(","):
        path = args.shared / ROWS[row]
        if not path.exists():
            print(f"({row}: {path} absent, skipped)", file=sys.stderr)
            continue
        r = asyncio.run(measure(row, path, args.hovers, args.edits))
        r["cpu"] = edit_cpu(path, BACKENDS[row], args.edits)
        results.append(r)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"{os.cpu_count()} CPUs; load average {load:.1f}; Python {sys.version.split()[0]}\n")
    print("| kernel | lines | first analysis s | hover median ms | hover worst ms "
          "| diagnostics after an edit, median s | worst s | edit CPU s (in process), median |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for r in results:
        h, e = r["hovers"], r["edits"]
        print(f"| {Path(ROWS[r['row']]).parent.name} | {r['lines']} | {r['first']:.2f} "
              f"| {statistics.median(h) * 1000:.1f} | {max(h) * 1000:.1f} "
              f"| {statistics.median(e):.3f} | {max(e):.3f} | {statistics.median(r['cpu']):.3f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
