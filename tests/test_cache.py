"""The per-user cache's bound (tilemem.cache.prune): re-used entries outlast one-offs.

The user's cache is shared by every checkout and every test run.  Under plain LRU a test
suite's one-off ``--rules`` sets (a fresh temp path each run: a new key each time) pushed
every other checkout's shipped rule set out, and each command there rebuilt its rules.
"""
from __future__ import annotations

import os

from tilemem.cache import prune, read_private, write_private

S = 1_000_000_000       # one second in ns


def _entry(d, name: str, written: int, read: int | None = None) -> None:
    """An entry of two files written at ``written`` (seconds), read at ``read`` if given."""
    for suffix in (".json", ".pickle"):
        path = d / f"rules-{name}{suffix}"
        write_private(path, name.encode())
        atime = written if read is None or suffix == ".pickle" else read
        os.utime(path, ns=(atime * S, written * S))


def _keys(d) -> set:
    return {p.name.split(".")[0][len("rules-"):] for p in d.iterdir() if p.name.startswith("rules-")}


def test_reused_entries_outlast_a_flood_of_one_offs(tmp_path):
    d = tmp_path / "cache"
    shipped = [f"shipped{i}" for i in range(4)]
    for i, name in enumerate(shipped):           # written long ago, read since
        _entry(d, name, 100 + i, read=200 + i)
    flood = [f"oneoff{i:02d}" for i in range(20)]
    for i, name in enumerate(flood):             # written later, never read back
        _entry(d, name, 300 + i)
    prune(d, "rules-", 8)
    # all re-used entries stay; the newest one-offs fill the other slots
    assert _keys(d) == set(shipped) | set(flood[-4:])


def test_a_new_entry_lives_to_be_read_again(tmp_path):
    """With every slot held by re-used entries, the newest one-offs still keep
    ``keep // 4`` slots: a new checkout's set is not removed as it is stored."""
    d = tmp_path / "cache"
    reused = [f"old{i}" for i in range(8)]
    for i, name in enumerate(reused):
        _entry(d, name, 100 + i, read=200 + i)
    _entry(d, "new", 300)
    prune(d, "rules-", 8)
    assert "new" in _keys(d)
    assert _keys(d) == {"new"} | set(reused[1:])  # the least recently read one went


def test_a_read_marks_an_entry_reused_and_keeps_its_write_time(tmp_path):
    d = tmp_path / "cache"
    _entry(d, "a", 100)
    path = d / "rules-a.json"
    assert read_private(path) == b"a"
    st = os.stat(path)
    assert st.st_mtime_ns == 100 * S and st.st_atime_ns > st.st_mtime_ns
    for i in range(10):                          # one-offs written after the read
        _entry(d, f"z{i}", 400 + i)
    prune(d, "rules-", 4)
    assert "a" in _keys(d)


def test_within_the_bound_nothing_is_removed(tmp_path):
    d = tmp_path / "cache"
    for i in range(3):
        _entry(d, f"e{i}", 100 + i)
    (d / "other.tables.json").write_bytes(b"{}")
    prune(d, "rules-", 3)
    assert _keys(d) == {"e0", "e1", "e2"} and (d / "other.tables.json").exists()
