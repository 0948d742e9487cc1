"""Per-format namespaces (``meshioplusplus.vtu.read/write`` …), generated from the core's
format table so that a new format needs no Python code."""

import importlib
import inspect
import sys
import types

from . import _core
from ._helpers import MESHIO_ONLY_OPTIONS
from ._helpers import read as _read
from ._helpers import write as _write



def _python_default(text):
    return {"true": True, "false": False, "": None}.get(text, text)


def _make_namespace(package, row):
    name = row["name"]
    module = types.ModuleType(f"{package}.{name}", f"{row['description']} ({', '.join(row['extensions'])}).")

    def read(filename):
        return _read(filename, file_format=name)

    read.__doc__ = f"Read a {row['description']} file."
    module.read = read

    if row["can_write"]:
        option_names = [option for option, _, _ in row["write_options"]]

        def write(filename, mesh, **options):
            unknown = set(options) - set(option_names) - set(MESHIO_ONLY_OPTIONS)
            if unknown:
                raise TypeError(f"{name}.write() got unexpected keyword(s) {sorted(unknown)}")
            _write(filename, mesh, file_format=name, **options)

        parameters = [
            inspect.Parameter("filename", inspect.Parameter.POSITIONAL_OR_KEYWORD),
            inspect.Parameter("mesh", inspect.Parameter.POSITIONAL_OR_KEYWORD),
        ] + [
            inspect.Parameter(option, inspect.Parameter.KEYWORD_ONLY, default=_python_default(default))
            for option, default, _ in row["write_options"]
        ]
        write.__signature__ = inspect.Signature(parameters)
        write.__doc__ = f"Write a {row['description']} file.\n\n" + "\n".join(
            f"{option}: {help_text}" for option, _, help_text in row["write_options"]
        )
        module.write = write
    return module


def _attach_extras(package, name, module):
    """Adds the names in ``__all__`` of ``<package>._format_extras.<name>``, where that module
    exists (meshio-compatible extras such as ``xdmf.TimeSeriesWriter``)."""
    try:
        extras = importlib.import_module(f"{package}._format_extras.{name}")
    except ModuleNotFoundError as error:
        if error.name != f"{package}._format_extras.{name}":
            raise
        return
    for attribute in getattr(extras, "__all__", ()):
        setattr(module, attribute, getattr(extras, attribute))


def install_namespaces(package):
    """Create one submodule per registered format under ``package``; returns them by name."""
    namespaces = {}
    for row in _core.formats():
        module = _make_namespace(package, row)
        _attach_extras(package, row["name"], module)
        sys.modules[module.__name__] = module
        namespaces[row["name"]] = module
    return namespaces
