"""Held-out pairs of issue #27: real kernels PyPTO re-reads exactly, cut down to one InCore
function and edited (a move or extract removed and its uses rewired to its source, operands
swapped, a load's shape, offset rank or target changed, an op or keyword misspelled), each
answered by PyPTO itself when the pairs were made (tools: ../shared/tools/oracle.py; never
run here).  ``pypto.json`` holds PyPTO's answer: null (accepted: ``NAME.expected.pto`` is
its output) or its error message (``NAME.err`` is tilemem's located error).  tilemem must
accept exactly what PyPTO accepts, with PyPTO's output, and reject what it rejects."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

import tilemem
from tilemem.errors import TilememError
from tilemem.frontend.reading import read_program

DATA = Path(__file__).resolve().parent / "data" / "printed_pairs"
CASES = json.loads((DATA / "pypto.json").read_text(encoding="utf-8")) if (DATA / "pypto.json").exists() else {}


def _ids():
    return sorted(CASES)


@pytest.mark.parametrize("name", [n for n in _ids() if CASES[n]["pypto"] is None])
def test_accepted_as_pypto_accepts_it(name):
    text = (DATA / f"{name}.pto").read_text(encoding="utf-8")
    got = tilemem.solve(text, backend=CASES[name]["backend"], path=f"{name}.pto").text
    assert got.rstrip("\n") == (DATA / f"{name}.expected.pto").read_text(encoding="utf-8").rstrip("\n")


@pytest.mark.parametrize("name", [n for n in _ids() if CASES[n]["pypto"] is not None])
def test_rejected_as_pypto_rejects_it(name):
    text = (DATA / f"{name}.pto").read_text(encoding="utf-8")
    with pytest.raises(TilememError) as got:
        read_program(text, f"{name}.pto")
    assert got.value.format() == (DATA / f"{name}.err").read_text(encoding="utf-8").rstrip("\n")


def test_the_pairs_are_there():
    kinds = {n.rsplit("__", 1)[-1].rstrip("0123456789") for n in CASES}
    assert len(CASES) >= 200 and {"orig", "rm_move", "misspell_op", "misspell_kw", "load_shape"} <= kinds
    assert any(c["pypto"] is None for c in CASES.values()) and any(c["pypto"] for c in CASES.values())
