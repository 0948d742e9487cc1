"""Partitioned polydata (.pvtp): ``read(path, piece=k)``, ``read(path, merge_points=True)``,
``num_pieces(path)`` — as ``meshioplusplus.pvtu``."""

from .._capabilities import register
from ._partitioned import make_reader

__all__ = ["read", "num_pieces"]

read, num_pieces = make_reader("pvtp")
register("pvtp", partitioned_reader=read, namespace={"read": read, "num_pieces": num_pieces})
