"""Isolated reads (docs/isolation.md): a read that runs in a worker process, so that a hostile
file that crashes, hangs or exhausts a third-party parser (libhdf5, libnetcdf, libcgns) takes
down the worker, never the caller. ``read(path, isolate=True)`` comes here.

How the arrays come back without a copy: the worker installs the core's allocator hook
(``_allocation.allocator_installed``) serving every array from one memfd "arena" per read (a
sparse shared-memory file, bump-allocated). The result is pickled with each array living in the
arena replaced by ``(offset, dtype, shape, strides)``; the arena's file descriptor travels over a
Unix socket (SCM_RIGHTS) and the caller maps it once and builds views on the mapping. The
mapping is unmapped when the last array of that read dies (``SharedMapping``). Arrays a Python
layer made after the core (rare) are pickled, i.e. copied: ``stats()`` counts both.

Workers are started once (a ``python -c`` child via ``subprocess``, i.e. fork+exec, safe with
threads in the caller), kept in a small pool, reused, replaced after a crash or timeout, and
stopped at exit. A crash (signal), a timeout or the memory cap is a ``ReadError`` naming the
file, the format and the cause.
"""

import atexit
import bisect
import copyreg
import ctypes
import ctypes.util
import fcntl
import importlib
import io
import mmap
import os
import pickle
import select
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

import numpy as np

from . import _core
from ._allocation import allocator_installed, python_allocator_active
from ._dispatch import _filetypes_from_path, _is_buffer, _spool_suffix
from ._dispatch import read as _read_in_process
from ._dispatch import read_metadata as _metadata_in_process
from ._capabilities import entry_point, set_entry_point
from ._read_less import ReadRequest
from ._exceptions import ReadError
from ._format_extras._time_series import open_core_series
from ._cell_types import num_nodes_per_cell
from ._mesh import DeferredArray, DeferredCellBlock, Mesh
from ._options import CORE_FORMATS

#: Formats parsed by HDF5, netCDF or CGNS (the libraries docs/reliability.md cannot vouch for):
#: the command line isolates their reads by default.
LIBRARY_BACKED_FORMATS = frozenset({"exodus", "xdmf", "hmf", "h5m", "cgns", "med", "vtkhdf"})

#: ``MESHIOPLUSPLUS_ISOLATE=1`` makes ``read`` isolate when the caller does not say.
ENVIRONMENT_VARIABLE = "MESHIOPLUSPLUS_ISOLATE"

#: Comma-separated modules a worker imports when it starts: formats registered from Python
#: (``register_format``) exist in the worker only if a module it imports registers them.
IMPORTS_VARIABLE = "MESHIOPLUSPLUS_ISOLATE_IMPORTS"

#: Room for the parsers' own scratch memory above ``max_bytes`` (RLIMIT_DATA in the worker).
_SCRATCH_HEADROOM = 256 << 20
#: A worker is replaced after this many reads (leaks inside the third-party libraries add up).
_READS_PER_WORKER = 5000
_HEADER = struct.Struct("<QQ")  # payload length, arena length
_ARENA_ALIGNMENT = 64

_stats_lock = threading.Lock()
_stats = {"reads": 0, "bytes_shared": 0, "bytes_copied": 0, "workers_started": 0, "reads_into_kept_pages": 0}


def stats():
    """Counters of this process's isolated reads: ``reads``, ``bytes_shared`` (array bytes that
    came back through shared memory), ``bytes_copied`` (array bytes that came back pickled, i.e.
    copied; 0 for the core's formats), ``workers_started`` and ``reads_into_kept_pages`` (reads
    whose worker wrote into the pages of an earlier read's arrays that had died here)."""
    with _stats_lock:
        return dict(_stats)


def _count(**amounts):
    with _stats_lock:
        for name, amount in amounts.items():
            _stats[name] += amount


def environment_default():
    """Whether ``MESHIOPLUSPLUS_ISOLATE`` asks for isolated reads."""
    return os.environ.get(ENVIRONMENT_VARIABLE, "").strip().lower() in {"1", "true", "yes", "on"}


# --- the caller's side of the memory: a mapping that lives as long as its arrays ----------

_libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
_libc.mmap.restype = ctypes.c_void_p
_libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
_libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
_libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
_MAP_FAILED = ctypes.c_void_p(-1).value


class SharedMapping:
    """One read's arena, mapped in this process (read-write, private to it once the worker has
    let go). numpy arrays of that read are views whose ``base`` chain ends here; the mapping is
    unmapped when the last of them dies. Unlike ``mmap.mmap`` it holds no file descriptor."""

    def __init__(self, fd, length):
        address = _libc.mmap(None, length, mmap.PROT_READ | mmap.PROT_WRITE, mmap.MAP_SHARED, fd, 0)
        if address in (None, _MAP_FAILED):
            raise OSError(ctypes.get_errno(), "mmap of an isolated read's arrays failed")
        self.address, self.length = address, length
        # A large read's memory file is kept (one descriptor while its arrays live) and handed
        # back to a worker when they die: its pages are allocated already, and faulting in fresh
        # shared pages is most of the cost of a large isolated read.
        self.fd = os.dup(fd) if length >= _RECYCLE_FROM else None
        self.__array_interface__ = {"shape": (length,), "typestr": "|u1", "data": (address, False), "version": 3}

    def __del__(self):
        if self.address:
            _libc.munmap(self.address, self.length)
            self.address = 0
        if self.fd is not None:
            fd, self.fd = self.fd, None
            _spares.append(fd)  # list.append: atomic, no lock a collector could deadlock on
            while len(_spares) > _SPARES_KEPT:
                try:
                    os.close(_spares.pop(0))
                except (IndexError, OSError):
                    break


#: Memory files of dead reads, for the next read's worker to reuse (see ``SharedMapping``).
_spares = []
_SPARES_KEPT = 2
_RECYCLE_FROM = 1 << 20


def _take_spares():
    taken = []
    while True:
        try:
            taken.append(_spares.pop())
        except IndexError:
            return taken


def _adopt(mapping_bytes, pid):
    offset, dtype, shape, strides = pid
    return np.ndarray(shape, dtype, buffer=mapping_bytes, offset=offset, strides=strides)


#: What a worker's answer may name. The worker parses hostile files: should a parser bug ever let
#: a file take it over, an unrestricted unpickler would hand that file the caller too. Allowed:
#: the package's own classes (a Mesh, its blocks and regions, our exceptions), Python's exception
#: classes and plain containers, and numpy's array/dtype reconstructors — never a function that
#: could run a command.
_ALLOWED_NUMPY = frozenset({
    ("numpy", "dtype"), ("numpy", "ndarray"),
    ("numpy._core.numeric", "_frombuffer"), ("numpy.core.numeric", "_frombuffer"),
    ("numpy._core.multiarray", "_reconstruct"), ("numpy.core.multiarray", "_reconstruct"),
    ("numpy._core.multiarray", "scalar"), ("numpy.core.multiarray", "scalar"),
})
_ALLOWED_BUILTINS = frozenset({"set", "frozenset", "complex", "bytearray", "slice"})


class _AdoptingUnpickler(pickle.Unpickler):
    def __init__(self, file, mapping_bytes):
        super().__init__(file)
        self._bytes = mapping_bytes

    def persistent_load(self, pid):
        return _adopt(self._bytes, pid)

    def find_class(self, module, name):
        found = super().find_class(module, name)
        if (module, name) in _ALLOWED_NUMPY:
            return found
        if module == "builtins" and (name in _ALLOWED_BUILTINS
                                     or (isinstance(found, type) and issubclass(found, BaseException))):
            return found
        if (module == "meshioplusplus" or module.startswith("meshioplusplus.")) and isinstance(found, type):
            return found
        raise pickle.UnpicklingError(f"an isolated read's answer named {module}.{name}, which it may not")


def _restricted_loads(payload):
    """Unpickles a frame of plain values (bytes, numbers, strings, tuples, dicts) from a worker."""
    return _AdoptingUnpickler(io.BytesIO(payload), None).load()


# --- the worker's side: an arena served to the core's allocator hook -----------------------

class _Arena:
    """First-fit allocation in one sparse memfd. Blocks a reader frees (its scratch) are reused by
    later allocations of the same read, so the pages shipped are the arrays plus what scratch
    could not fit into holes; nothing is returned to the kernel before the read is shipped."""

    def __init__(self, capacity, spare=None):
        # A spare is a dead read's memory file: its pages are there already (not zeroed again:
        # the core fills every array it allocates).
        self.fd = spare if spare is not None else os.memfd_create("meshioplusplus-read", os.MFD_CLOEXEC)
        os.ftruncate(self.fd, capacity)
        self.map = mmap.mmap(self.fd, capacity, flags=mmap.MAP_SHARED | getattr(mmap, "MAP_NORESERVE", 0))
        self.mapped = capacity
        self.key = _file_key(self.fd)
        self._open_view()
        self.reset(capacity)
        self.reused = False

    def _open_view(self):
        self.view = memoryview(self.map)
        probe = np.frombuffer(self.view[:1], np.uint8)
        self.base = probe.__array_interface__["data"][0]
        del probe

    def reset(self, capacity):
        self.capacity, self.used, self.high, self.refused = capacity, 0, 0, 0
        self.holes = []  # [start, end) ranges below ``used`` that were freed, by start

    def alloc(self, nbytes):
        size = max(int(nbytes), 1)
        for index, (hole_start, hole_end) in enumerate(self.holes):
            start = -(-hole_start // _ARENA_ALIGNMENT) * _ARENA_ALIGNMENT
            if start + size <= hole_end:
                self.holes[index:index + 1] = [r for r in ((hole_start, start), (start + size, hole_end)) if r[0] < r[1]]
                return self.view[start:start + size]
        start = -(-self.used // _ARENA_ALIGNMENT) * _ARENA_ALIGNMENT
        end = start + size
        if end > self.capacity:
            self.refused = int(nbytes)
            raise MemoryError(f"isolated read: {nbytes} more bytes would pass the cap of {self.capacity}")
        if start > self.used:
            self.holes.append((self.used, start))
        self.used, self.high = end, max(self.high, end)
        return self.view[start:end]

    def free(self, block):
        with memoryview(block) as view:
            if not view.nbytes:
                return
            start = np.frombuffer(view, np.uint8).__array_interface__["data"][0] - self.base
            end = start + view.nbytes
        if not 0 <= start < end <= self.used:
            return
        position = bisect.bisect(self.holes, (start, end))
        self.holes.insert(position, (start, end))
        merged = []
        for hole in self.holes:  # coalesce neighbours (a read frees a handful of blocks)
            if merged and hole[0] <= merged[-1][1]:
                merged[-1] = (merged[-1][0], max(merged[-1][1], hole[1]))
            else:
                merged.append(hole)
        if merged and merged[-1][1] >= self.used:
            self.used = merged.pop()[0]
        self.holes = merged

    def holds(self, array):
        address = array.__array_interface__["data"][0]
        if not (self.base <= address < self.base + self.high) or array.size == 0:
            return False
        low = high = address
        for extent, stride in zip(array.shape, array.strides):
            if stride > 0:
                high += (extent - 1) * stride
            else:
                low += (extent - 1) * stride
        return self.base <= low and high + array.itemsize <= self.base + self.high

    def close(self):
        self.view.release()
        self.map.close()
        os.close(self.fd)


def _file_key(fd):
    status = os.fstat(fd)
    return status.st_dev, status.st_ino


#: The worker's mappings of the arenas it shipped, by memory file. When the caller hands a file
#: back (the read's arrays died there), the next read writes into pages this process has mapped
#: already: no fresh shared-memory page faults, which cost more than the read itself on a large
#: binary file (4 KiB shmem pages). Kept: the last read's arena and the ones handed back. The
#: next request drops, before it parses anything, every kept mapping the caller did not hand
#: back: no read ever runs while this process maps pages that back a caller's live arrays.
_kept_arenas = {}


def _arena_for(capacity, spares):
    """The arena of the next read: a kept mapping of a memory file the caller handed back, else
    the largest handed-back file mapped afresh, else a new file. Spares not used are closed, and
    kept mappings of files the caller did not hand back are dropped (their pages are the
    caller's, or freed)."""
    handed_back = {_file_key(fd): fd for fd in spares}
    for key in [key for key in _kept_arenas if key not in handed_back]:
        _kept_arenas.pop(key).close()
    chosen = next((arena for key, arena in _kept_arenas.items() if arena.mapped >= capacity), None)
    if chosen is not None:
        del _kept_arenas[chosen.key]
        os.ftruncate(chosen.fd, capacity)
        chosen._open_view()
        chosen.reset(capacity)
        chosen.reused = True
    fresh = None
    if chosen is None and spares:
        fresh = max(spares, key=lambda fd: os.fstat(fd).st_size)
        stale = _kept_arenas.pop(_file_key(fresh), None)
        if stale is not None:  # a kept mapping too small for this read's cap: the file is remapped
            stale.close()
    for fd in spares:
        if fd != fresh:
            os.close(fd)
    return chosen if chosen is not None else _Arena(capacity, fresh)


class _SharingPickler(pickle.Pickler):
    def __init__(self, file, arena):
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self.arena, self.shared, self.copied = arena, 0, 0

    def persistent_id(self, obj):
        if type(obj) is not np.ndarray:
            return None
        if obj.dtype.hasobject or not self.arena.holds(obj):
            self.copied += obj.nbytes
            return None
        self.shared += obj.nbytes
        offset = obj.__array_interface__["data"][0] - self.arena.base
        return (offset, obj.dtype, obj.shape, obj.strides)

    def reducer_override(self, obj):
        # The points and cells a structured grid implies travel as their recipes: a Mesh's or a
        # DeferredCellBlock's own pickle would make them first (a .vti of a few kB implies
        # millions of points and cells). The caller checks each recipe (_checked_recipes).
        if (type(obj) is Mesh and obj.points_deferred) or (type(obj) is DeferredCellBlock and obj.is_deferred):
            return copyreg.__newobj__, (type(obj),), dict(obj.__dict__)
        return NotImplemented


def _send_frame(sock, payload, arena_length=0, fds=()):
    header = _HEADER.pack(len(payload), arena_length)
    if fds:
        socket.send_fds(sock, [header], list(fds))
    else:
        sock.sendall(header)
    sock.sendall(payload)


def _receive_exactly(sock, count):
    chunks, remaining = [], count
    while remaining:
        chunk = sock.recv(min(remaining, 1 << 22))
        if not chunk:
            raise EOFError
        chunks.append(chunk)
        remaining -= len(chunk)
    return b"".join(chunks)


def _receive_frame(sock):
    header, fds, _, _ = socket.recv_fds(sock, _HEADER.size, 4)
    if not header:
        raise EOFError
    if len(header) < _HEADER.size:
        header += _receive_exactly(sock, _HEADER.size - len(header))
    length, arena_length = _HEADER.unpack(header)
    return _receive_exactly(sock, length), arena_length, fds


def _data_segment_bytes():
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmData:"):
                return int(line.split()[1]) * 1024
    return 0


def _memory_words(cap, arena, error):
    if arena.refused:
        return (f"the read needs more than max_bytes={cap} bytes for its arrays "
                f"({arena.used} given, {arena.refused} more asked)")
    if cap:
        return f"the parser ran out of memory under the cap max_bytes={cap} (+ {_SCRATCH_HEADROOM >> 20} MiB): {error}"
    return f"out of memory: {error}"


def _run_request(request, spares=()):
    """One read in the worker: ``(reply payload, arena length, arena fd or None, retire)``."""
    import resource

    os.chdir(request["cwd"])
    _core.set_thread_count(request["threads"])
    _core.set_max_array_bytes(request["array_limit"])
    cap = request["max_bytes"]
    arena = _arena_for(cap if cap else max(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"), 1 << 30),
                       spares)
    limits = resource.getrlimit(resource.RLIMIT_DATA)
    if cap:  # the parsers' own heap: what they use now, the cap, and room for scratch
        soft = _data_segment_bytes() + cap + _SCRATCH_HEADROOM
        resource.setrlimit(resource.RLIMIT_DATA, (soft if limits[1] == resource.RLIM_INFINITY else min(soft, limits[1]),
                                                  limits[1]))
    buffer = io.BytesIO()
    pickler = _SharingPickler(buffer, arena)
    try:
        with allocator_installed(arena.alloc, arena.free, deferred_arrays=True):
            try:
                if request["op"] == "read_metadata":
                    mesh = _metadata_in_process(request["path"], request["format"])
                elif request["op"] == "series":
                    mesh = _series_in_process(request["path"], request["format"], *request["series"])
                elif request["op"] == "share":  # a rank's reading of read(path, comm=comm, isolate=True)
                    mesh = entry_point("rank_share")(request["share"])
                else:
                    selection = request.get("selection")
                    mesh = _read_in_process(request["path"], request["format"], max_bytes=cap,
                                            piece=request["piece"], merge_points=request["merge_points"],
                                            request=ReadRequest(**selection) if selection else None)
                pickler.dump(("mesh", mesh))
            except MemoryError as error:
                pickler.dump(("memory", _memory_words(cap, arena, error)))
            except BaseException as error:  # noqa: BLE001 - every failure goes back to the caller
                try:
                    if arena.refused:  # the core reported our refusal as its own ReadError
                        pickler.dump(("memory", _memory_words(cap, arena, error)))
                    else:
                        pickler.dump(("error", error))
                except Exception:
                    buffer.seek(0), buffer.truncate(), pickler.clear_memo()
                    pickler.dump(("error", ReadError(f"{type(error).__name__}: {error}")))
            mesh = error = None
    finally:
        resource.setrlimit(resource.RLIMIT_DATA, limits)
    shared, copied = pickler.shared, pickler.copied
    pickler.clear_memo()  # the memo holds the arrays; they must die before the arena is closed
    del pickler
    retire = False
    payload = pickle.dumps((buffer.getvalue(), shared, copied, arena.reused), protocol=pickle.HIGHEST_PROTOCOL)
    length = -(-arena.high // mmap.PAGESIZE) * mmap.PAGESIZE if shared else 0
    fd = os.dup(arena.fd) if length else None
    if fd is not None:
        os.ftruncate(fd, length)  # the pages past the arrays were never touched; drop the rest
    try:
        arena.view.release()
    except BufferError:  # something still holds an array of this read: start afresh next time
        retire = True
    if fd is not None and not retire:
        previous = _kept_arenas.pop(arena.key, None)
        if previous is not None and previous is not arena:
            previous.close()
        _kept_arenas[arena.key] = arena
    elif not retire:
        arena.close()
    return payload, length, fd, retire


def serve(fd):
    """The worker's loop (``python -c`` child): one request per frame until the socket closes."""
    sock = socket.socket(fileno=fd)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C in a terminal reaches the caller only
    for name in filter(None, os.environ.get(IMPORTS_VARIABLE, "").split(",")):
        importlib.import_module(name.strip())  # formats registered from Python, before hardening
    _harden()
    _send_frame(sock, pickle.dumps(_hardening))  # ready: imports done, hardening applied
    served = 0
    while True:
        try:
            request, _, spares = _receive_frame(sock)
        except (EOFError, OSError):
            return
        request = pickle.loads(request)
        payload, length, arena_fd, retire = _run_request(request, spares)
        served += 1
        try:
            _send_frame(sock, payload, length, [arena_fd] if arena_fd is not None else ())
        finally:
            if arena_fd is not None:
                os.close(arena_fd)
        if retire or served >= _READS_PER_WORKER:
            return


# --- optional hardening of the worker (Linux Landlock) ------------------------------------

_hardening = {"no_new_privs": False, "landlock_abi": 0, "filesystem_writes": "allowed", "tcp": "allowed"}


def _worker_environment():
    """The caller's environment for a worker, less the isolation switch (a worker reads in place)
    and any sanitizer ``log_path=``: in a sanitized build (ASan/UBSan/LSan) a worker's report of
    the crash it was isolated for goes to its stderr — kept by the caller as the worker's last
    words in the ReadError — not to the report files that mean a finding in the caller's process."""
    environment = {k: v for k, v in os.environ.items() if k != ENVIRONMENT_VARIABLE}
    for variable in ("ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS"):
        if variable in environment:
            environment[variable] = ":".join(option for option in environment[variable].split(":")
                                             if not option.startswith("log_path="))
    return environment


def _harden():
    """No writes outside a private temporary folder, no TCP bind/connect — where the kernel has
    Landlock (ABI 1: files, ABI 4: TCP). Reading stays unrestricted (the worker reads files)."""
    syscall = _libc.syscall
    syscall.restype = ctypes.c_long
    if _libc.prctl(38, 1, 0, 0, 0) != 0:  # PR_SET_NO_NEW_PRIVS, required by Landlock
        return
    _hardening["no_new_privs"] = True
    abi = syscall(444, None, ctypes.c_size_t(0), ctypes.c_uint32(1))  # landlock_create_ruleset(VERSION)
    if abi < 1:
        return
    writes = 2 | 16 | 32 | 64 | 128 | 256 | 512 | 1024 | 2048 | 4096  # write, remove, make *
    writes |= (8192 if abi >= 2 else 0) | (16384 if abi >= 3 else 0)  # refer, truncate
    net = 3 if abi >= 4 else 0  # bind/connect TCP
    attr = struct.pack("<QQ", writes, net) if abi >= 4 else struct.pack("<Q", writes)
    ruleset = syscall(444, ctypes.c_char_p(attr), ctypes.c_size_t(len(attr)), ctypes.c_uint32(0))
    if ruleset < 0:
        return
    try:
        folder = tempfile.mkdtemp(prefix="meshioplusplus-worker-")
        folder_fd = os.open(folder, os.O_PATH | os.O_DIRECTORY)
        rule = struct.pack("<Qi", writes, folder_fd)
        added = syscall(445, ctypes.c_int(ruleset), ctypes.c_int(1), ctypes.c_char_p(rule), ctypes.c_uint32(0))
        os.close(folder_fd)
        if added != 0:
            return
        if syscall(446, ctypes.c_int(ruleset), ctypes.c_uint32(0)) != 0:
            return
        os.environ["TMPDIR"] = tempfile.tempdir = folder
        atexit.register(shutil.rmtree, folder, True)
        _hardening.update(landlock_abi=int(abi), filesystem_writes=f"only beneath {folder}", folder=folder,
                          tcp="blocked" if net else "allowed (Landlock ABI < 4)")
    finally:
        os.close(ruleset)


# --- the caller's side: workers, the pool, and the read ----------------------------------

_START_TIMEOUT = 120.0
_LAUNCH = "import sys; sys.path.insert(0, sys.argv[1]); from meshioplusplus._isolation import serve; serve(int(sys.argv[2]))"


class _Worker:
    def __init__(self):
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        # The worker's stderr goes to a file of its own: the last words of a crash (an
        # assertion's text) go into the ReadError.
        self.stderr = tempfile.TemporaryFile()
        # Appending (a flag the worker shares): truncating before each read then works.
        fcntl.fcntl(self.stderr.fileno(), fcntl.F_SETFL, fcntl.fcntl(self.stderr.fileno(), fcntl.F_GETFL) | os.O_APPEND)
        package_parent = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        environment = _worker_environment()
        self.process = subprocess.Popen([sys.executable, "-c", _LAUNCH, package_parent, str(theirs.fileno())],
                                        pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL,
                                        stdout=subprocess.DEVNULL, stderr=self.stderr, env=environment)
        theirs.close()
        self.sock, self.reads = ours, 0
        _count(workers_started=1)
        # Wait for the worker to be ready, so that a read's timeout does not include its start.
        ready, _, _ = select.select([ours], [], [], _START_TIMEOUT)
        try:
            if not ready:
                raise EOFError
            self.hardening = _restricted_loads(_receive_frame(ours)[0])
        except (EOFError, OSError, pickle.UnpicklingError):
            words = self.last_words()
            self.stop(kill=True)
            raise ReadError("isolated reads: the worker process did not start" + (f": {words}" if words else "")) from None

    @property
    def pid(self):
        return self.process.pid

    def alive(self):
        return self.process.poll() is None and self.reads < _READS_PER_WORKER

    def stop(self, kill=False):
        try:
            self.sock.close()
            if kill:
                self.process.kill()
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        finally:
            self.stderr.close()
            folder = getattr(self, "hardening", {}).get("folder")
            if folder:  # a killed worker leaves its temporary folder behind
                shutil.rmtree(folder, ignore_errors=True)

    def last_words(self):
        try:
            self.stderr.seek(0, os.SEEK_END)
            size = self.stderr.tell()
            self.stderr.seek(max(0, size - 400))
            text = self.stderr.read().decode("utf-8", "replace").strip()
        except (OSError, ValueError):
            return ""
        return text.splitlines()[-1] if text else ""

    def call(self, request, timeout, fds=()):
        """Send a request and wait for its reply; ``TimeoutError`` or ``EOFError`` (died)."""
        self.stderr.seek(0), self.stderr.truncate()
        _send_frame(self.sock, pickle.dumps(request, protocol=pickle.HIGHEST_PROTOCOL), fds=fds)
        if timeout is not None:
            ready, _, _ = select.select([self.sock], [], [], max(float(timeout), 0.0))
            if not ready:
                raise TimeoutError
        self.reads += 1
        return _receive_frame(self.sock)


class _Pool:
    """Idle workers, reused; one read at a time per worker, as many workers as reads in flight
    (at most ``limit`` kept idle)."""

    def __init__(self, limit):
        self.lock = threading.Lock()
        self.idle, self.limit, self.busy = [], limit, set()

    def take(self):
        with self.lock:
            while self.idle:
                worker = self.idle.pop()
                if worker.alive():
                    self.busy.add(worker)
                    return worker
                worker.stop(kill=True)
        worker = _Worker()
        with self.lock:
            self.busy.add(worker)
        return worker

    def give_back(self, worker, healthy):
        with self.lock:
            self.busy.discard(worker)
            if healthy and worker.alive() and len(self.idle) < self.limit:
                self.idle.append(worker)
                return
        worker.stop(kill=not healthy)

    def shutdown(self):
        with self.lock:
            busy, self.busy = self.busy, set()
            workers, self.idle = self.idle + list(busy), []
        for worker in workers:
            worker.stop(kill=worker in busy)


_pool = _Pool(limit=max(2, min(8, os.cpu_count() or 2)))
atexit.register(_pool.shutdown)


def shutdown():
    """Stop the idle workers now (they are also stopped at exit; a later read starts one)."""
    _pool.shutdown()


def worker_info():
    """The hardening the workers run under (ask a worker; starts one if none is idle)."""
    worker = _pool.take()
    try:
        return {**worker.hardening, "pid": worker.pid}
    finally:
        _pool.give_back(worker, True)


def _format_words(path, file_format):
    if file_format:
        return file_format
    try:
        names = [name for name in _filetypes_from_path(path) if name in CORE_FORMATS]
    except ReadError:
        return "unknown format"
    return " or ".join(names) if names else "unknown format"


def _failure(path, file_format, cause, reason):
    words = _format_words(path, file_format)
    error = ReadError(f"{path}: {words}: isolated read failed: {reason}")
    error.path, error.format, error.reason, error.cause = path, words, reason, cause
    return error


def _death_reason(worker):
    try:
        code = worker.process.wait(timeout=10)
    except subprocess.TimeoutExpired:  # closed its end but lingers: finish it
        worker.process.kill()
        code = worker.process.wait()
    words = worker.last_words()
    if code < 0:
        name = signal.Signals(-code).name if -code in signal.Signals._value2member_map_ else f"signal {-code}"
        description = signal.strsignal(-code) or ""
        reason = f"the reader process was killed by {name} ({description})"
    else:
        reason = f"the reader process exited with status {code}"
    return f"{reason}; its last words: {words}" if words else reason


def read_metadata(filename, file_format=None, timeout=None):
    """``read_metadata`` in a worker process."""
    return read(filename, file_format, timeout=timeout, op="read_metadata")


def read_share(job, timeout=None, max_bytes=None):
    """A rank's reading of a partitioned read (``_parallel.read_share``: no communication, the
    index came by bcast) in a worker: ``(mesh, files_read, bytes_read)``."""
    return read(job["path"], job["format"], max_bytes=max_bytes, timeout=timeout, op="share", share=job)


class IsolatedSeries:
    """The core's time-series reader, each call in a worker (``TimeSeriesReader(path,
    isolate=True)``): the worker opens the series for every call, so a crash or hang in one step
    is that call's ``ReadError`` and the next call starts afresh. The same shape as the core's
    reader: ``num_steps``, ``time(k)``, ``read_mesh()``, ``read_step(k)``."""

    def __init__(self, filename, format_name, timeout=None, options=None):
        self._path, self._format, self._timeout = os.fspath(filename), format_name or "", timeout
        self._options = dict(options or {})
        self.num_steps, self._times = self._call("open")

    def _call(self, action, step=None):
        return read(self._path, self._format or None, timeout=self._timeout, op="series",
                    series=(action, step, self._options))

    def time(self, step):
        return self._times[step]

    def read_mesh(self):
        return self._call("mesh")

    def read_step(self, step):
        return self._call("step", int(step))


def _series_in_process(path, format_name, action, step, options):
    reader = open_core_series(path, format_name or "", options)
    if action == "open":
        return reader.num_steps, [reader.time(k) for k in range(reader.num_steps)]
    if action == "mesh":
        return reader.read_mesh()
    return reader.read_step(step)


def read(filename, file_format=None, max_bytes=None, piece=None, merge_points=False, timeout=None, request=None,
         op="read", series=None, share=None):
    """``read`` in a worker process (see the module text and docs/isolation.md)."""
    if _is_buffer(filename):
        if not file_format:
            raise ReadError("File format must be given if buffer is used")
        with tempfile.NamedTemporaryFile(suffix=_spool_suffix(file_format)) as spool:
            content = filename.read()
            spool.write(content.encode("utf-8", "surrogateescape") if isinstance(content, str) else content)
            spool.flush()
            return read(spool.name, file_format, max_bytes, piece, merge_points, timeout, request, op, series, share)
    if max_bytes is not None and (isinstance(max_bytes, bool) or int(max_bytes) <= 0):
        raise ValueError(f"max_bytes must be a positive number of bytes, got {max_bytes!r}")
    path = os.fspath(filename)  # read from the caller's folder: errors name the path as given
    selection = request.core_arguments() if request is not None and request.given() else None
    request = {"op": op, "selection": selection, "series": series, "share": share, "path": path, "cwd": os.getcwd(), "format": file_format, "piece": piece, "merge_points": merge_points,
               "max_bytes": None if max_bytes is None else int(max_bytes), "threads": _core.thread_count(),
               "array_limit": _core.max_array_bytes()}
    shown = os.fspath(filename)
    worker = _pool.take()
    healthy = False
    spares = _take_spares()
    try:
        try:
            payload, length, fds = worker.call(request, timeout, spares[:4])
        except TimeoutError:
            raise _failure(shown, file_format, "timeout", f"no result within timeout={timeout} s; "
                           "the reader process was killed") from None
        except (EOFError, ConnectionError):
            raise _failure(shown, file_format, "signal", _death_reason(worker)) from None
        healthy = True
        return _unpack(payload, length, fds, shown, file_format, max_bytes)
    finally:
        for fd in spares:
            os.close(fd)  # the worker has its own copies
        _pool.give_back(worker, healthy)


def _unpack(payload, length, fds, shown, file_format, max_bytes):
    mapping = None
    try:
        if length:
            mapping = np.asarray(SharedMapping(fds[0], length))
    finally:
        for fd in fds:
            os.close(fd)
    body, shared, copied, reused = _restricted_loads(payload)
    kind, value = _AdoptingUnpickler(io.BytesIO(body), mapping).load()
    _count(reads=1, bytes_shared=shared, bytes_copied=copied, reads_into_kept_pages=int(bool(reused)))
    if kind == "mesh":
        return _checked_recipes(value, shown, file_format, max_bytes)
    if kind == "memory":
        raise _failure(shown, file_format, "memory", value)
    raise value


def _checked_recipes(mesh, shown, file_format, max_bytes):
    """A mesh from a worker whose structured-grid arrays came as recipes: each must be a
    registered recipe whose arguments give the rows it claims (a recipe runs here, on first
    use), within ``max_bytes``; inside an allocator block (``pinned_reads``) they are made now."""
    if isinstance(mesh, (tuple, list)):  # a rank's share: (mesh, files, bytes)
        for item in mesh:
            _checked_recipes(item, shown, file_format, max_bytes)
        return mesh
    if not isinstance(mesh, Mesh):
        return mesh
    deferred = [(mesh._make_points, 3)] if mesh.points_deferred else []
    for block in mesh.cells:
        if type(block) is DeferredCellBlock and block.is_deferred:
            deferred.append((block._make, num_nodes_per_cell.get(block.type, 8)))
            if not isinstance(block._make, DeferredArray) or block._make.count != block._count:
                raise _failure(shown, file_format, "answer", "the reader process sent cells whose count and recipe disagree")
    for recipe, width in deferred:
        try:
            valid = isinstance(recipe, DeferredArray) and recipe.rows_from_arguments() == recipe.count >= 0
        except Exception:  # noqa: BLE001 - arguments a recipe cannot take
            valid = False
        if not valid:
            raise _failure(shown, file_format, "answer", "the reader process sent a structured-grid recipe that does "
                           "not check out (not a registered recipe, or arguments that disagree with its size)")
        if max_bytes is not None and recipe.count * width * 8 > max_bytes:
            raise _failure(shown, file_format, "memory", f"the grid implies {recipe.count * width * 8} bytes of "
                           f"points or cells, more than max_bytes={max_bytes}")
    if python_allocator_active():
        mesh.points  # noqa: B018
        for block in mesh.cells:
            block.data  # noqa: B018
    return mesh


# The time-series readers (floor 4) reach isolation (this floor) through the entry points.
set_entry_point("isolated_series", IsolatedSeries)
set_entry_point("isolate_by_default", environment_default)
