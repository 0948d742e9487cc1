"""The text-parsing floor (issue 36): bench/floor/text_floor.cpp, built here on first use, timed
on a file beside the readers. `floor_seconds(path)` is its best wall time over `repeat` runs in a
fresh process (mmap, line-aligned parts on every core, std::from_chars on every token, a sum)."""

import os
import pathlib
import shutil
import subprocess

FLOOR_DIR = pathlib.Path(__file__).resolve().parent / "floor"
BINARY = pathlib.Path(__file__).resolve().parent / ".build" / "text_floor"


def _built(source, binary):
    """`binary`, compiled from bench/floor/`source` when missing or older than it."""
    source = FLOOR_DIR / source
    if binary.exists() and binary.stat().st_mtime >= source.stat().st_mtime:
        return binary
    compiler = os.environ.get("CXX") or shutil.which("g++") or shutil.which("clang++")
    if compiler is None:
        raise RuntimeError("the text floor needs a C++20 compiler (g++ or clang++)")
    binary.parent.mkdir(exist_ok=True)
    subprocess.run([compiler, "-std=c++20", "-O2", "-pthread", str(source), "-o", str(binary)], check=True)
    return binary


def build_floor():
    return _built("text_floor.cpp", BINARY)


def floor_seconds(path, threads=None, repeat=3):
    """Best wall time (s) of the floor on `path`; `threads` defaults to every core."""
    arguments = [str(build_floor()), str(path), str(threads or os.cpu_count()), str(repeat)]
    done = subprocess.run(arguments, capture_output=True, text=True, check=True)
    return float(done.stdout.split()[0])


# The writers' floor (issue 36): bench/floor/text_write_floor.cpp, the numbers of a written file
# printed again with std::to_chars on every core and written into a new file.
WRITE_BINARY = pathlib.Path(__file__).resolve().parent / ".build" / "text_write_floor"


def build_write_floor():
    return _built("text_write_floor.cpp", WRITE_BINARY)


def write_floor_seconds(written_path, scratch_path, threads=None, repeat=3):
    """Best wall time (s) of printing `written_path`'s numbers again and writing them to
    `scratch_path` (removed after); `threads` defaults to every core."""
    arguments = [str(build_write_floor()), str(written_path), str(scratch_path), str(threads or os.cpu_count()), str(repeat)]
    done = subprocess.run(arguments, capture_output=True, text=True, check=True)
    return float(done.stdout.split()[0])


if __name__ == "__main__":
    import sys

    for name in sys.argv[1:]:
        print(f"{name}: {floor_seconds(name) * 1e3:.1f} ms")
