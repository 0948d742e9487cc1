"""Per-format namespaces (``meshioplusplus.vtu.read/write`` …), generated from the core's
format table so that a new format needs no Python code; what a format module registered in
``_capabilities`` is added to its namespace: ``namespace`` names, ``lazy_namespace`` names (made
on first use) and ``submodules`` (``meshioplusplus.xdmf.common`` …, which make the namespace a
package whose sub-modules are already in ``sys.modules``)."""

import inspect
import sys
import types

from . import _core
from . import _meshio_names  # noqa: F401  (meshio's private sub-modules register themselves)
from ._capabilities import capability
from ._meshio_names._tables import module_attributes_made_on_first_use
from ._helpers import read as _read
from ._helpers import write as _write
from ._options import MESHIO_ONLY_OPTIONS


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

        translate = capability(name).translate_options

        def write(filename, mesh, **options):
            if translate is not None:  # meshio keywords the format module gives a meaning
                options = translate(options)
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


def _add_lazy_names(module, makers):
    """``module.<name>`` made by ``makers[name]()`` on first use, then kept (PEP 562)."""
    module.__getattr__, module.__dir__ = module_attributes_made_on_first_use(vars(module), makers)


def _add_extras(module, extras):
    for attribute, value in extras.namespace.items():
        setattr(module, attribute, value)  # the format module's extras (xdmf.TimeSeriesWriter …)
    if extras.lazy_namespace:
        _add_lazy_names(module, dict(extras.lazy_namespace))
    if extras.submodules:
        module.__path__ = []  # a package: "import meshioplusplus.xdmf.common" finds it in sys.modules
        for name, submodule in extras.submodules.items():
            setattr(module, name, submodule)
            sys.modules[f"{module.__name__}.{name}"] = submodule


def install_namespaces(package):
    """Create one submodule per registered format under ``package``; returns them by name."""
    namespaces = {}
    for row in _core.formats():
        module = _make_namespace(package, row)
        _add_extras(module, capability(row["name"]))
        sys.modules[module.__name__] = module
        namespaces[row["name"]] = module
    return namespaces
