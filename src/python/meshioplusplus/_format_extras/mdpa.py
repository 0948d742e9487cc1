"""Kratos model parts (.mdpa): meshio's writer takes ``binary=False`` (and refuses ``True``: the
format is text only); code that passes it runs here too."""

from .._capabilities import register
from .._exceptions import WriteError


def _meshio_binary_keyword(options):
    options = dict(options)
    if options.pop("binary", False):
        raise WriteError("mdpa: Kratos model parts are text only; binary=True has no meaning here (as in meshio)")
    return options


register("mdpa", translate_options=_meshio_binary_keyword)
