"""Reading CAD files (STEP, IGES) with tessellation options: ``meshioplusplus.step.read`` and
``meshioplusplus.iges.read`` take them as keywords; ``meshioplusplus.read`` uses the defaults.

    mesh = meshioplusplus.step.read("part.step", linear_deflection=0.05, angular_deflection=0.3)

``linear_deflection``: the largest distance between a triangle and the CAD surface, in model
units (millimetres, OpenCASCADE's conversion); ``None``: 0.001 × the diagonal of the model's
bounding box. ``angular_deflection``: the largest angle (radians) between neighbouring
triangles along a curve, default 0.5. ``relative=True``: OpenCASCADE's relative mode, where
``linear_deflection`` (default 0.001) is a fraction of each edge's size. Reading needs a build
with OpenCASCADE (``meshioplusplus._core.features()["occt"]``); without it a ``ReadError``
names the packages."""

import math
import os

from .. import _core
from .._conversion import from_core
from .._exceptions import MissingFileError
from .._options import with_array_limit


def make_reader(format_name):
    def read(filename, linear_deflection=None, angular_deflection=0.5, relative=False, max_bytes=None):
        """Read a CAD file as a triangulated surface (see the module text for the options):
        one triangle block, cell data ``cad:face_id`` / ``cad:solid_id``, a Cell region per
        solid (by name) and per CAD face."""
        path = os.fspath(filename)
        if not os.path.exists(path):
            raise MissingFileError(f"File {path} not found.")
        linear = 0.0 if linear_deflection is None else float(linear_deflection)
        if linear_deflection is not None and not (linear > 0 and math.isfinite(linear)):
            raise ValueError(f"linear_deflection must be a positive number, got {linear_deflection!r}")
        angular = float(angular_deflection)
        if not (angular > 0 and math.isfinite(angular)):
            raise ValueError(f"angular_deflection must be a positive number of radians, got {angular_deflection!r}")
        return with_array_limit(max_bytes, lambda: from_core(
            _core.read_cad(path, format_name, linear, angular, bool(relative))))

    read.__qualname__ = read.__name__ = "read"
    return read
