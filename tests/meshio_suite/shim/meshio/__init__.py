"""A stand-in ``meshio`` package that resolves to meshio++, for running meshio's own test
suite against us: ``import meshio`` returns ``meshioplusplus`` and ``meshio.<name>`` resolves to
``meshioplusplus.<name>`` (format namespaces, ``_cli``, ``xdmf`` …). Only the test harness puts
this folder on ``sys.path``; it is not part of the installed package."""

import importlib
import importlib.abc
import importlib.util
import sys

import meshioplusplus

_PREFIX = "meshio."
_TARGET = "meshioplusplus."


class _AliasFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Maps ``meshio.X`` to the already importable ``meshioplusplus.X``."""

    def find_spec(self, fullname, path=None, target=None):
        if not fullname.startswith(_PREFIX):
            return None
        try:
            importlib.import_module(_TARGET + fullname[len(_PREFIX):])
        except ImportError:
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec):
        return sys.modules[_TARGET + spec.name[len(_PREFIX):]]

    def exec_module(self, module):
        pass


sys.meta_path.insert(0, _AliasFinder())
sys.modules[__name__] = meshioplusplus
