"""Writing an output file: whole or not at all, through symlinks, keeping what the file was.

:func:`write_atomic` is how every command writes a file (``-o``, ``--in-place``,
``--out-dir``, ``fmt``, ``facts --format souffle``, ``graph -o``), with one promise: a
regular target ends either exactly as it was or exactly the new content; a target that
is not a regular file is written into, never replaced.

* **symlinks are written through**: the data goes to the file the link (or chain of
  links, or linked directory) points to, and the link stays a link -- replacing it by a
  regular file would leave the real file stale;
* a **FIFO, character or block device or socket** is written into as a stream, as a
  shell's ``>`` would (a FIFO's reader gets the output; ``/dev/null`` stays a device);
* a regular file: the new content is written to a temp file in the target's directory,
  then renamed over the target, so a crash, an error or a signal leaves the old file or
  the new one, never half of one; the temp file gets the target's **mode and owner**
  (owner and group as far as the OS lets this user set them);
* a target with **several hard links** cannot be renamed over without splitting them:
  it is rewritten in place, with the handled signals (SIGINT, SIGTERM, SIGHUP) blocked,
  after room for the whole new content is reserved (``posix_fallocate``) and with its old
  bytes kept in memory: a write that still fails (a full disk, ``ulimit -f``, an I/O
  error) puts them back, so only a SIGKILL or a crash during the copy can leave it
  half-written;
* ``expect`` (``--in-place``): the :class:`FileIdentity` of the file as it was read --
  device, inode, size, modification time and a hash of the bytes read.  Just before the
  rename (or the copy) the file is compared with it; a file changed, moved or deleted
  since it was read is not written (:class:`FileChanged`);
* temp files are named ``.tilemem-<host>-<pid>-<random>.tmp`` (named before they are
  created, not by ``tempfile``, whose name reaches its caller only after the file
  exists); the handled signals are held from the temp file's creation to its rename or
  removal, and any error removes it; the first write into a directory removes the ones
  a dead tilemem process of this user and host left there (a SIGKILL during a write);
  temp files of the older ``.tilemem-<random>.tmp`` form are removed once an hour old.

Every failure is a :class:`~tilemem.errors.UsageError` naming the path (control
characters escaped).
"""
from __future__ import annotations

import errno
import os
import re
import signal
import stat
import time
TYPE_CHECKING = False    # (typing is not imported at run time: ~12 M instructions of a start)
if TYPE_CHECKING:
    from typing import Optional, Union

from tilemem.errors import UsageError, printable

__all__ = ["write_atomic", "replace_atomic", "remove_stale_temps", "TEMP_PREFIX", "FileIdentity",
           "FileChanged", "fingerprint"]

TEMP_PREFIX = ".tilemem-"
_HOST: Optional[str] = None        # this host's tag in our temp names (_host())
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
            stale = m.group(1) == _host() and int(m.group(2)) != os.getpid() \
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


class FileChanged(UsageError):
    """The file to rewrite in place is no longer the one that was read."""


class FileIdentity:
    """What a file was when it was read: device, inode, size, modification time (ns) and
    a fingerprint of the bytes read (picklable: a batch worker reads, the parent writes)."""
    __slots__ = ("dev", "ino", "size", "mtime_ns", "digest")

    def __init__(self, dev: int, ino: int, size: int, mtime_ns: int, digest: str):
        self.dev, self.ino, self.size, self.mtime_ns, self.digest = dev, ino, size, mtime_ns, digest

    @classmethod
    def of(cls, st: os.stat_result, data: bytes) -> "FileIdentity":
        """The identity of a file whose ``fstat`` before reading was ``st`` and whose
        bytes are ``data``."""
        return cls(st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, fingerprint(data))

    def same_inode(self, st: os.stat_result) -> bool:
        return (st.st_dev, st.st_ino) == (self.dev, self.ino)

    def same_stat(self, st: os.stat_result) -> bool:
        return self.same_inode(st) and (st.st_size, st.st_mtime_ns) == (self.size, self.mtime_ns)

    def __getstate__(self):
        return (self.dev, self.ino, self.size, self.mtime_ns, self.digest)

    def __setstate__(self, state):
        self.dev, self.ino, self.size, self.mtime_ns, self.digest = state

    def __eq__(self, other):
        return isinstance(other, FileIdentity) and self.__getstate__() == other.__getstate__()

    def __repr__(self):
        return f"FileIdentity(dev={self.dev}, ino={self.ino}, size={self.size}, " \
               f"mtime_ns={self.mtime_ns}, digest={self.digest[:12]}...)"


def fingerprint(data: bytes) -> str:
    """The content hash of :class:`FileIdentity`: SHA-256 by OpenSSL (hashlib, loaded
    here, only by a rewrite in place): ~1 ms for a 455 kB kernel, where Python's own is
    ~7 ms."""
    import hashlib
    return hashlib.sha256(data).hexdigest()


def _shown(path: str) -> str:
    return printable(os.fspath(path))


def _error(path: str, why: str) -> UsageError:
    return UsageError(f"cannot write '{_shown(path)}': {why}")


def _read_fd(fd: int, size: int) -> bytes:
    chunks, offset = [], 0
    while True:
        chunk = os.pread(fd, max(size - offset, 0) + (1 << 16), offset)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        offset += len(chunk)


def _check_unchanged(path: str, st: Optional[os.stat_result], expect: "FileIdentity",
                     read=None, content: bool = True) -> None:
    """Raise FileChanged unless the file (``st``: its stat now, None: gone) is still
    the one ``expect`` describes: same inode, size and time, and (with ``content``, read
    only when those agree) the same bytes.  ``read``: returns the current bytes
    (default: read ``path``)."""
    if st is None or not expect.same_inode(st):
        raise FileChanged(f"not written: '{_shown(path)}' was moved or deleted since it was "
                          "read (solve it again)")
    changed = not expect.same_stat(st)
    if not changed and content:
        if read is None:
            with open(path, "rb") as f:
                data = f.read()
        else:
            data = read()
        changed = fingerprint(data) != expect.digest
    if changed:
        raise FileChanged(f"not written: '{_shown(path)}' changed since it was read "
                          "(solve it again)")


_NO_RESERVE = {getattr(errno, n) for n in ("EOPNOTSUPP", "ENOTSUP", "ENOSYS", "EINVAL")
               if hasattr(errno, n)}


def _reserve(fd: int, size: int) -> None:
    """Allocate room for ``size`` bytes from the start of the file, so that the in-place
    copy cannot run out of space half-way (where the file system cannot reserve, the
    old bytes restored on a failure still keep the promise)."""
    if size <= 0 or not hasattr(os, "posix_fallocate"):
        return
    try:
        os.posix_fallocate(fd, 0, size)
    except OSError as e:
        if e.errno not in _NO_RESERVE:
            raise


def _pwrite_all(fd: int, data: bytes) -> None:
    view, offset = memoryview(data), 0
    while offset < len(data):
        n = os.pwrite(fd, view[offset:], offset)
        if n <= 0:                                    # pragma: no cover - POSIX says never
            raise OSError(errno.EIO, os.strerror(errno.EIO))
        offset += n


def _copy_in_place(path: str, target: str, data: bytes,
                   expect: Optional["FileIdentity"]) -> None:
    """Overwrite ``target`` with ``data`` in place (keeps its inode: every hard link),
    with the handled signals held off until it is done: room for the new content is
    reserved first, and the old bytes are put back if a write fails all the same."""
    mask = _hold_signals()
    try:
        fd = os.open(target, os.O_RDWR | _O_CLOEXEC)
        try:
            st = os.fstat(fd)
            old = _read_fd(fd, st.st_size)
            if expect is not None:
                _check_unchanged(path, st, expect, read=lambda: old)
            try:
                _reserve(fd, len(data))
            except OSError:
                if os.fstat(fd).st_size != len(old):    # an emulated reservation grew it
                    os.ftruncate(fd, len(old))
                raise
            try:
                _pwrite_all(fd, data)
                os.ftruncate(fd, len(data))
            except OSError:
                _restore(fd, old, len(old))
                raise
        finally:
            os.close(fd)
    finally:
        _release_signals(mask)


def _restore(fd: int, old: bytes, size: int) -> None:
    """Put the old bytes back (into room they held already) after a failed copy."""
    try:
        _pwrite_all(fd, old)
        os.ftruncate(fd, size)
    except OSError:                                   # nothing more can be done
        pass


def _write_stream(path: str, target: str, data: bytes) -> None:
    """Write ``data`` into a FIFO, a device or a socket, as a shell's ``>`` would: the
    target is opened (a FIFO waits for its reader) and written, never replaced."""
    try:
        try:
            fd = os.open(target, os.O_WRONLY | _O_CLOEXEC | getattr(os, "O_NOCTTY", 0))
        except OSError as e:
            if e.errno != errno.ENXIO or not stat.S_ISSOCK(os.stat(target).st_mode):
                raise
            import socket
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
                sock.connect(target)
                sock.sendall(data)
            return
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
        finally:
            os.close(fd)
    except OSError as e:
        raise _error(path, e.strerror or str(e)) from None


def _temp_name(directory: str) -> str:
    """A fresh temp file name in ``directory``, known before the file exists (so that
    whatever interrupts its creation, the cleanup knows what to remove)."""
    # (os.urandom(6).hex() is secrets.token_hex(6), without importing secrets)
    return os.path.join(directory, f"{TEMP_PREFIX}{_host()}-{os.getpid()}-{os.urandom(6).hex()}.tmp")


def _host() -> str:
    """The first 8 hex digits of the SHA-1 of this host's name: whose temp files a
    directory holds.  Made on first use with Python's own SHA-1 and ``os.uname``:
    ``hashlib`` loads OpenSSL and ``socket`` its module, ~34 M instructions of every
    process that writes a file, for one short digest."""
    global _HOST
    if _HOST is None:
        try:
            from _sha1 import sha1
        except ImportError:             # pragma: no cover - a build without it
            from hashlib import sha1
        if hasattr(os, "uname"):
            name = os.uname().nodename  # (what socket.gethostname() returns on POSIX)
        else:                           # pragma: no cover - not POSIX
            import socket
            name = socket.gethostname()
        _HOST = sha1(name.encode("utf-8", "replace")).hexdigest()[:8]
    return _HOST


def write_atomic(path: str, data: Union[str, bytes],
                 expect: Optional[FileIdentity] = None) -> None:
    """Write ``data`` (text is written as UTF-8 with ``\\n`` line ends) to ``path`` as the
    module docstring says; raises UsageError saying why it cannot (FileChanged when
    ``expect`` no longer describes the file).

    The handled signals are held from the temp file's creation to its rename: a Ctrl-C
    that comes while the data is written is handled before the rename (the old file
    stays, the temp file is removed); one that comes during the rename after it (the new
    file stays).  Where signals cannot be held (another thread takes them), the temp
    file is named before it is created, so any exception removes it."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    target = os.path.realpath(path)           # through symlinks, to the real file
    try:
        st = os.stat(target)
    except FileNotFoundError:
        st = None
    except OSError as e:
        raise _error(path, e.strerror or str(e)) from None
    if st is not None and stat.S_ISDIR(st.st_mode):
        raise _error(path, "it is a directory")
    if expect is not None:
        _check_unchanged(path, st, expect, content=False)   # early: no temp file for a stale input
    if st is not None and not stat.S_ISREG(st.st_mode):
        _write_stream(path, target, data)
        return
    if st is not None and st.st_nlink > 1:
        try:
            _copy_in_place(path, target, data, expect)
        except OSError as e:
            raise _error(path, e.strerror or str(e)) from None
        return
    directory = os.path.dirname(target) or "."
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
            if expect is not None:            # last look before the rename
                try:
                    now = os.stat(target)
                except FileNotFoundError:
                    now = None
                _check_unchanged(path, now, expect)
            os.replace(tmp, target)
            return
        except BaseException as e:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            if isinstance(e, OSError):
                raise _error(path, e.strerror or str(e)) from None
            raise
        finally:
            _release_signals(mask)
    raise _error(path, f"no free temp file name in {_shown(directory)}")


def replace_atomic(path, data: bytes, prefix: str = TEMP_PREFIX, suffix: str = ".tmp") -> None:
    """Replace whatever ``path`` names by a file holding ``data``: a temp file (mode 0600,
    named ``prefix...suffix``) in its directory, renamed over the name -- a link there
    is replaced, never written through; any failure removes the temp file.  For cache
    entries (:mod:`tilemem.cache`, :mod:`tilemem.resultcache`), whose names someone
    could point elsewhere; outputs the user names go through :func:`write_atomic`.
    Raises OSError."""
    import tempfile
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(os.fspath(path)) or ".", prefix=prefix,
                               suffix=suffix)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
