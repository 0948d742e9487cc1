"""What a read or write call tells the core besides the file: write options as the core's
format table declares them (text values, meshio's keyword spellings), the keywords meshio
takes that have no meaning here, and the per-call array limit. Shared by read/write dispatch
and the format modules that write through the core themselves (VTM blocks, PVD steps)."""

from . import _core

#: The core's format table (``src/cpp/formats/registry.cpp``), one row per format.
CORE_FORMATS = {row["name"]: row for row in _core.formats()}

#: Keywords meshio's writers take that a format may not declare: accepted so meshio code runs,
#: and passed to the core only where the format declares them (``float_fmt`` for the text
#: formats meshio formats numbers in; elsewhere floats are written in shortest round-trip form).
MESHIO_ONLY_OPTIONS = {
    "float_fmt": "a Python format spec for floats ('.16e', '.6g', '.3f'); formats that do not declare it "
                 "write floats in their shortest exact (round-trip) form",
}


def write_option_specs(format_name):
    """``{option: default text}`` of ``format_name``'s write options ({} for an unknown name)."""
    row = CORE_FORMATS.get(format_name)
    return {name: default for name, default, _ in row["write_options"]} if row else {}


def option_text(name, value, default):
    """One option value as the core takes it (``None``: leave the option out)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        # meshio's None means "the format's default", except where the default is an
        # enabled feature (compression=None means no compression).
        return None if default == "" else "none"
    return str(value)


def core_write_options(format_name, options):
    """``options`` (Python values) as the core's text options for ``format_name``: meshio-only
    keywords dropped, ``None`` resolved against each option's default."""
    specs = write_option_specs(format_name)
    text_options = {}
    for name, value in options.items():
        if name in MESHIO_ONLY_OPTIONS and name not in specs:
            continue
        text = option_text(name, value, specs.get(name, ""))
        if text is not None:
            text_options[name] = text
    return text_options


def with_array_limit(max_bytes, function, *args, **kwargs):
    """``function(*args, **kwargs)`` with the per-array read limit set to ``max_bytes``
    (``None``: the current limit), restored afterwards."""
    if max_bytes is None:
        return function(*args, **kwargs)
    previous = _core.max_array_bytes()
    _core.set_max_array_bytes(int(max_bytes))
    try:
        return function(*args, **kwargs)
    finally:
        _core.set_max_array_bytes(previous)
