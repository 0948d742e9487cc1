"""The package's type information as a typed user program sees it: tests/typing/user_script.py
passes ``mypy --strict`` (py.typed, the hints on the public API, _core.pyi) and runs."""

import os
import pathlib
import subprocess
import sys

import pytest

import meshioplusplus

USER_SCRIPT = pathlib.Path(__file__).resolve().parents[1] / "typing" / "user_script.py"


def _environment():
    """This process's import path for the subprocess, so both see the same meshioplusplus."""
    # Not resolved: a dev build's package folder links each source file from src/python.
    package_root = str(pathlib.Path(os.path.abspath(meshioplusplus.__file__)).parent.parent)
    environment = dict(os.environ)
    environment["PYTHONPATH"] = os.pathsep.join([package_root, *[p for p in sys.path if p]])
    return environment


def test_user_script_passes_mypy_strict(tmp_path):
    pytest.importorskip("mypy", reason="mypy is in requirements-test.txt (pip install mypy)")
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--cache-dir", str(tmp_path),
         str(USER_SCRIPT)],
        capture_output=True, text=True, env=_environment(), cwd=tmp_path,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Success: no issues found" in result.stdout


def test_user_script_runs():
    result = subprocess.run([sys.executable, str(USER_SCRIPT)], capture_output=True, text=True,
                            env=_environment())
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("4 points; 2 cells of ['triangle']; regions ['left'] CELL [0]")


def test_core_stub_names_every_function_of_the_module():
    stub = (pathlib.Path(meshioplusplus.__file__).resolve().parent / "_core.pyi")
    if not stub.exists():  # a dev build links the package files one by one
        stub = pathlib.Path(__file__).resolve().parents[2] / "src" / "python" / "meshioplusplus" / "_core.pyi"
    text = stub.read_text()
    public = [name for name in dir(meshioplusplus._core) if not name.startswith("_")]
    missing = [name for name in public if f"def {name}(" not in text and f"class {name}" not in text
               and f"{name}:" not in text and f"{name} =" not in text]
    assert not missing, (
        f"_core.pyi lacks {missing}; regenerate it from a dev build: "
        "python -m nanobind.stubgen -m meshioplusplus._core -o src/python/meshioplusplus/_core.pyi")
