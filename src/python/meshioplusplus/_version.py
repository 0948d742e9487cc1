"""The package version, read by the package and the CLI (pyproject.toml states the same number)."""

__version__ = "0.1.0"
