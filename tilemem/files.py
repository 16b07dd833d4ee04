"""Writing an output file: atomically, through symlinks, keeping what the file was.

:func:`write_atomic` is how every command writes a file (``-o``, ``--in-place``,
``--out-dir``, ``facts --format souffle``, ``graph -o``):

* **symlinks are written through**: the data goes to the file the link (or chain of
  links, or linked directory) points to, and the link stays a link -- replacing it by a
  regular file would leave the real file stale;
* the new content is written to a temp file in the target's directory, then renamed
  over the target, so a crash, an error or a signal leaves the old file or the new
  one, never half of one; the temp file gets the target's **mode and owner** (owner and
  group as far as the OS lets this user set them);
* a target with **several hard links** cannot be renamed over without splitting them:
  the content is written (and checked) in a temp file first, then copied into the
  target in place with the handled signals (SIGINT, SIGTERM, SIGHUP) blocked, so only
  a SIGKILL or a crash during that copy can leave it half-written;
* temp files are named ``.tilemem-<host>-<pid>-<random>.tmp`` (named before they are
  created, not by ``tempfile``, whose name reaches its caller only after the file
  exists); the handled signals are held from the temp file's creation to its rename or
  removal, and any error removes it; the first write into a directory removes the ones
  a dead tilemem process of this user and host left there (a SIGKILL during a write);
  temp files of the older ``.tilemem-<random>.tmp`` form are removed once an hour old.
"""
from __future__ import annotations

import hashlib
import os
import re
import secrets
import signal
import socket
import time
from typing import Union

from tilemem.errors import UsageError

__all__ = ["write_atomic", "remove_stale_temps", "TEMP_PREFIX"]

TEMP_PREFIX = ".tilemem-"
_HOST = hashlib.sha1(socket.gethostname().encode("utf-8", "replace")).hexdigest()[:8]
_OURS = re.compile(r"\.tilemem-([0-9a-f]{8})-(\d+)-[^/]*\.tmp\Z")
_OLD_FORM = re.compile(r"\.tilemem-[A-Za-z0-9_]{8}\.tmp\Z")     # tempfile's 8 random chars
_OLD_AGE = 3600.0
_HANDLED = {getattr(signal, n) for n in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, n)}

_O_CLOEXEC = getattr(os, "O_CLOEXEC", 0)

_cleaned: set[str] = set()          # directories cleaned by this process


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True
    return True


def remove_stale_temps(directory: str) -> list[str]:
    """Remove the temp files a dead tilemem process of this user and host left in
    ``directory`` (once per directory and process); returns the names removed."""
    key = os.path.abspath(directory)
    if key in _cleaned:
        return []
    _cleaned.add(key)
    removed = []
    uid = os.getuid() if hasattr(os, "getuid") else None
    now = time.time()
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return removed
    for e in entries:
        if not e.name.startswith(TEMP_PREFIX):
            continue
        m = _OURS.match(e.name)
        try:
            st = e.stat(follow_symlinks=False)
        except OSError:
            continue
        if not e.is_file(follow_symlinks=False) or (uid is not None and st.st_uid != uid):
            continue
        if m:
            stale = m.group(1) == _HOST and int(m.group(2)) != os.getpid() \
                and not _pid_alive(int(m.group(2)))
        else:
            stale = bool(_OLD_FORM.match(e.name)) and now - st.st_mtime > _OLD_AGE
        if stale:
            try:
                os.unlink(e.path)
                removed.append(e.name)
            except OSError:
                pass
    return removed


def _new_file_mode() -> int:
    """0666 less the umask, as open() would create the file."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return 0o666 & ~int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return 0o666 & ~mask


def _keep_owner(fd: int, st) -> None:
    if not hasattr(os, "fchown"):
        return
    for uid, gid in ((st.st_uid, st.st_gid), (-1, st.st_gid)):
        try:
            os.fchown(fd, uid, gid)
            return
        except OSError:
            continue


def _hold_signals():
    """Block the handled signals in this thread; returns the mask to restore (None where
    the platform cannot block signals)."""
    if not hasattr(signal, "pthread_sigmask"):
        return None
    return signal.pthread_sigmask(signal.SIG_BLOCK, _HANDLED)


def _release_signals(mask) -> None:
    """Unblock: a signal that came while held is handled now (its handler may raise)."""
    if mask is not None:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)


def _signal_pending() -> bool:
    return hasattr(signal, "sigpending") and bool(signal.sigpending() & _HANDLED)


def _copy_in_place(target: str, data: bytes) -> None:
    """Overwrite ``target`` with ``data`` in place (keeps its inode: every hard link),
    with the handled signals held off until it is done."""
    mask = _hold_signals()
    try:
        fd = os.open(target, os.O_WRONLY)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            os.ftruncate(fd, len(data))
        finally:
            os.close(fd)
    finally:
        _release_signals(mask)


def _temp_name(directory: str) -> str:
    """A fresh temp file name in ``directory``, known before the file exists (so that
    whatever interrupts its creation, the cleanup knows what to remove)."""
    return os.path.join(directory, f"{TEMP_PREFIX}{_HOST}-{os.getpid()}-{secrets.token_hex(6)}.tmp")


def write_atomic(path: str, data: Union[str, bytes]) -> None:
    """Write ``data`` (text is written as UTF-8 with ``\\n`` line ends) to ``path`` as the
    module docstring says; raises UsageError saying why it cannot.

    The handled signals are held from the temp file's creation to its rename: a Ctrl-C
    that comes while the data is written is handled before the rename (the old file
    stays, the temp file is removed); one that comes during the rename after it (the new
    file stays).  Where signals cannot be held (another thread takes them), the temp
    file is named before it is created, so any exception removes it."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    target = os.path.realpath(path)           # through symlinks, to the real file
    if os.path.isdir(target):
        raise UsageError(f"cannot write '{path}': it is a directory")
    directory = os.path.dirname(target) or "."
    try:
        st = os.stat(target)
    except FileNotFoundError:
        st = None
    except OSError as e:
        raise UsageError(f"cannot write '{path}': {e.strerror}") from None
    remove_stale_temps(directory)
    for _attempt in range(100):
        tmp = _temp_name(directory)
        mask = _hold_signals()
        try:
            try:
                fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _O_CLOEXEC, 0o600)
            except FileExistsError:
                continue                      # (finally: released; never ours to remove)
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view):]
                if st is not None:
                    _keep_owner(fd, st)
                    os.fchmod(fd, st.st_mode & 0o7777)
                else:
                    os.fchmod(fd, _new_file_mode())
            finally:
                os.close(fd)
            if _signal_pending():             # interrupted while writing: handle it now
                _release_signals(mask)        # (its handler raises: the old file stays)
                mask = None
            if st is not None and st.st_nlink > 1 and os.path.isfile(target):
                _copy_in_place(target, data)
                os.unlink(tmp)
            else:
                os.replace(tmp, target)
            return
        except BaseException as e:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            if isinstance(e, OSError):
                raise UsageError(f"cannot write '{path}': {e.strerror}") from None
            raise
        finally:
            _release_signals(mask)
    raise UsageError(f"cannot write '{path}': no free temp file name in {directory}")
