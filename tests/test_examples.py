"""Every program in examples/ solves with every backend, and solving is idempotent."""
from pathlib import Path

import pytest

import tilemem

EXAMPLES = sorted((Path(__file__).resolve().parents[1] / "examples").glob("*.pto"))


@pytest.mark.parametrize("backend", [None, "910B", "950"])
@pytest.mark.parametrize("path", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_example_solves_and_is_a_fixed_point(path, backend):
    sol = tilemem.solve(str(path), backend=backend)
    assert sol.spaces, "every example has tiles to place"
    again = tilemem.solve(sol.text, backend=backend)
    assert again.text == sol.text
    assert again.moves == []


def test_examples_exist():
    assert len(EXAMPLES) >= 2
