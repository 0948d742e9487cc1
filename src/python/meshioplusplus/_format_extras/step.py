"""STEP (.step, .stp) read as a triangulated surface through OpenCASCADE:
``meshioplusplus.step.read(path, linear_deflection=, angular_deflection=, relative=)``
(``_cad.py`` says what they mean)."""

from .._capabilities import register
from ._cad import make_reader

__all__ = ["read"]

read = make_reader("step")
register("step", namespace={"read": read})
