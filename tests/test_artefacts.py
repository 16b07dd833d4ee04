"""Version-keyed artefacts of tilemem's per-user cache (issue #29): what a start would
otherwise build from tilemem's own data files -- the DSL's op wrappers (``ops.txt``) and
operand tables (``dtypes.txt``, ``ranges.txt``), which check printed IR -- is kept as
marshalled plain data, keyed by the file's text and the code that reads it.  The tables
read from the cache are the tables built from the files; a damaged or foreign file is
rebuilt and rewritten, never trusted; no cache reads the same."""
import marshal

import pytest

from tilemem.cache import cached_data, package_text
from tilemem.frontend.dsl import operand_rules, wrappers


def _fresh():
    for f in (wrappers.wrapper_table, operand_rules.dtype_rules, operand_rules.range_rules):
        f.cache_clear()
    table = wrappers.wrapper_table()
    specs = table.specs
    aliases = {k for k in specs for k2 in specs if k != k2 and specs[k] is specs[k2]}
    return specs, aliases, table.region_ops, operand_rules.dtype_rules(), operand_rules.range_rules()


@pytest.fixture
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("TILEMEM_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("TILEMEM_NO_CACHE", raising=False)
    yield tmp_path / "cache"
    for f in (wrappers.wrapper_table, operand_rules.dtype_rules, operand_rules.range_rules):
        f.cache_clear()


def test_dsl_tables_cached_damaged_or_absent_read_the_same(private_cache, monkeypatch):
    text = package_text(wrappers.__file__, "tilemem.frontend.dsl", "ops.txt")
    built = wrappers.WrapperTable(text)
    want = (built.specs,
            {k for k in built.specs for k2 in built.specs if k != k2 and built.specs[k] is built.specs[k2]},
            built.region_ops,
            operand_rules._dtype_rules(operand_rules._table_text("dtypes.txt")),
            operand_rules._range_rules(operand_rules._table_text("ranges.txt")))
    assert want[1] and want[2]                      # the table has aliases and region ops

    assert _fresh() == want                         # built, and stored
    files = sorted(private_cache.glob("dsl-*.marshal"))
    assert [f.name.split("-")[1] for f in files] == ["dtypes", "ops", "ranges"]
    stored = [f.read_bytes() for f in files]
    assert _fresh() == want                         # read from the cache
    assert [f.read_bytes() for f in files] == stored
    # one spec asked of a table read from the cache is the spec built from ops.txt
    wrappers.wrapper_table.cache_clear()
    assert wrappers.wrapper_table().get("tile", "load") == built.get("tile", "load") is not None
    assert wrappers.wrapper_table().get("tile", "no_such_wrapper") is None

    for damage in (b"", b"\xff\x00not marshal", marshal.dumps({"x": 1}), marshal.dumps(((1, 2), ()))):
        for f in files:
            f.write_bytes(damage)
        assert _fresh() == want
        assert [f.read_bytes() for f in files] == stored     # rebuilt and rewritten

    monkeypatch.setenv("TILEMEM_NO_CACHE", "1")
    assert _fresh() == want


def test_cached_data_keys_by_its_inputs(private_cache):
    built = []

    def build(value):
        built.append(value)
        return {"rows": (value, frozenset({1, 2}), [None, True, 1.5])}

    first = cached_data("probe", (b"a", b"b"), lambda: build(1), dict)
    assert cached_data("probe", (b"a", b"b"), lambda: build(2), dict) == first
    assert cached_data("probe", (b"ab",), lambda: build(3), dict)["rows"][0] == 3   # not (a, b)
    assert built == [1, 3]
    # a value the reader refuses is built again
    assert cached_data("probe", (b"a", b"b"), lambda: build(4), lambda d: d["rows"][0] + 0
                       if d["rows"][0] == 4 else 1 / 0) == 4
