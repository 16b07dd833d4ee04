"""Input expansion shared by every command (``tilemem.tools.batch.expand_inputs``):
directories recursively and sorted, ``include``/``--exclude`` globs, the output directory."""
from __future__ import annotations

import os

from cli_helpers import run_in_process
from tilemem.tools.batch import expand_inputs, is_excluded


def _tree(root):
    for rel in ("b.pto", "a/x.pto", "a/y.txt", "build/z.pto", "a/gen/w.pto"):
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("# not a program\n")
    return root


def test_directories_expand_recursively_sorted_and_by_include(tmp_path):
    root = _tree(tmp_path / "k")
    files, problems = expand_inputs([str(root)])
    assert problems == []
    rel = [os.path.relpath(p, root) for p, _ in files]
    assert rel == sorted(rel) == ["a/gen/w.pto", "a/x.pto", "b.pto", "build/z.pto"]
    files, _ = expand_inputs([str(root)], include=("*.txt",))
    assert [os.path.relpath(p, root) for p, _ in files] == ["a/y.txt"]


def test_exclude_patterns_match_names_directories_and_relative_paths(tmp_path):
    root = _tree(tmp_path / "k")
    keep = lambda pats: [os.path.relpath(p, root) for p, _ in expand_inputs([str(root)],
                                                                            exclude_patterns=pats)[0]]
    assert keep(["build"]) == ["a/gen/w.pto", "a/x.pto", "b.pto"]          # a directory name
    assert keep(["x.pto", "gen/"]) == ["b.pto", "build/z.pto"]             # a file, a dir/
    assert keep(["a/*"]) == ["b.pto", "build/z.pto"]                        # a relative path
    assert is_excluded(str(root / "a" / "x.pto"), str(root), ["*.pto"])
    assert not is_excluded(str(root / "a" / "x.pto"), str(root), [])


def test_a_file_named_explicitly_is_taken_even_when_excluded(tmp_path):
    root = _tree(tmp_path / "k")
    files, problems = expand_inputs([str(root / "b.pto")], exclude_patterns=["b.pto"])
    assert [p for p, _ in files] == [str(root / "b.pto")] and problems == []


def test_out_dir_equal_to_the_input_directory_says_so(tmp_path, capsys):
    """`solve batch --out-dir batch` used to say "no *.pto files in this directory"."""
    root = _tree(tmp_path / "batch")
    status, _, err = run_in_process(capsys, "solve", root, "--out-dir", root)
    assert status == 2
    assert "inside the output directory" in err and "no *.pto files" not in err
    files, problems = expand_inputs([str(root)], exclude=str(root))
    assert files == [] and len(problems) == 1
