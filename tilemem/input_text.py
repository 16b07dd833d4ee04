"""A program's text from its file or a stream: UTF-8, checked, under the input-size cap.

Every failure is a located :class:`~tilemem.errors.TilememError`: a missing or unreadable
file, binary input (a NUL byte), invalid UTF-8 (at the first bad byte), input over the
cap (``tilemem.limits``).
"""
from __future__ import annotations

import os
import stat
TYPE_CHECKING = False    # (typing: for the type checker only, see tilemem/__init__.py)
if TYPE_CHECKING:
    from typing import Optional

from tilemem.errors import TilememError, position_of, printable, source_line_at
from tilemem.limits import current_limits

__all__ = ["read_source", "read_source_identity", "read_stream", "decode_source"]


def read_source(path, max_bytes: Optional[int] = None) -> str:
    """Read a program file as UTF-8 text, or raise TilememError saying why it cannot be read.

    Rejects missing files, directories, binary input (NUL bytes), invalid UTF-8 (with
    the line:col of the first bad byte) and files over ``max_bytes`` (default: the
    current input-size cap, ``tilemem.limits``).  A leading UTF-8 byte-order mark is
    dropped.
    """
    return read_source_identity(path, max_bytes, identity=False)[0]


def read_source_identity(path, max_bytes: Optional[int] = None, identity: bool = True):
    """``(text, identity)``: ``read_source``, and (with ``identity``) what the file was
    when read (``tilemem.files.FileIdentity``, for a rewrite in place to compare with;
    None for a file that is not a regular file)."""
    spath = os.fspath(path)
    shown = printable(spath)
    ident = None
    try:
        with open(spath, "rb") as fh:
            st = os.fstat(fh.fileno()) if identity else None
            data = read_stream(fh, shown, max_bytes)
        if st is not None and stat.S_ISREG(st.st_mode):
            from tilemem.files import FileIdentity
            ident = FileIdentity.of(st, data)
    except FileNotFoundError:
        raise TilememError(spath, None, None, "cannot read file: no such file") from None
    except IsADirectoryError:
        raise TilememError(spath, None, None, "cannot read file: it is a directory") from None
    except PermissionError:
        raise TilememError(spath, None, None, "cannot read file: permission denied") from None
    except OSError as exc:
        raise TilememError(spath, None, None, f"cannot read file: {exc.strerror or exc}") from None
    return decode_source(data, shown), ident


def read_stream(fh, path: str, max_bytes: Optional[int] = None) -> bytes:
    """All the bytes of a binary stream, read in 1 MB chunks.

    Stops early at a chunk holding a NUL byte (the input is binary: ``decode_source``
    reports where), and raises a located TilememError past ``max_bytes`` (default: the
    current input-size cap of ``tilemem.limits``; 0: none), so that a device or an
    endless pipe ends in an error instead of a hang.
    """
    if max_bytes is None:
        max_bytes = current_limits().max_input_size
    chunks = []
    total = 0
    while True:
        chunk = fh.read(1 << 20)
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
        if b"\x00" in chunk:
            break
        if max_bytes and total > max_bytes:
            data = b"".join(chunks)
            line, col = position_of(data, max_bytes)
            raise TilememError(path, line, col,
                               f"input too large: more than {max_bytes:,} bytes (--max-input-size "
                               f"0 lifts the limit)", _safe_line(data[:max_bytes + 4096], line))
    return b"".join(chunks)


def _safe_line(data: bytes, line: int) -> Optional[str]:
    text = data.decode("utf-8", errors="replace").replace("\x00", "\\0")
    return source_line_at(text, line)


def decode_source(data: bytes, path: str = "<stdin>") -> str:
    """Decode program bytes (e.g. from standard input) with the checks of ``read_source``."""
    nul = data.find(b"\x00")
    if nul >= 0:
        line, col = position_of(data, nul)
        raise TilememError(path, line, col, "binary input: NUL byte in the input (expected PyPTO program text)",
                           _safe_line(data, line))
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line, col = position_of(data, exc.start)
        raise TilememError(path, line, col,
                           f"input is not valid UTF-8: byte 0x{data[exc.start]:02x} cannot be decoded",
                           _safe_line(data, line)) from None
    return text[1:] if text.startswith("\ufeff") else text
