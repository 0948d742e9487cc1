"""Per-format additions to the generated namespaces: ``meshioplusplus.<name>`` gets every name in
``__all__`` of the module ``_format_extras/<name>.py`` when that module exists (see
``_formats.install_namespaces``). Example: ``meshioplusplus.xdmf.TimeSeriesWriter``."""
