"""Partitioned unstructured grids (.pvtu): ``read(path, piece=k)`` reads one piece,
``read(path, merge_points=True)`` welds the points pieces share; ``num_pieces(path)``.

    mesh = meshioplusplus.pvtu.read("run.pvtu", piece=2)
"""

from .._capabilities import register
from ._partitioned import make_reader

__all__ = ["read", "num_pieces"]

read, num_pieces = make_reader("pvtu")
register("pvtu", partitioned_reader=read, namespace={"read": read, "num_pieces": num_pieces})
