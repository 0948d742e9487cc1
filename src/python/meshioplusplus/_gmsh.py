"""meshio's ``Mesh.gmsh_periodic`` and the core's form of it.

The Gmsh reader keeps ``$Periodic`` as two field_data entries (layout in
``src/cpp/formats/gmsh/gmsh.hpp``): ``"gmsh:periodic"``, int64 — per link its dim, tag,
master tag, number of affine values, number of node pairs, then the pairs as point
indices — and ``"gmsh:periodic_affine"``, float64 — the links' affine values in turn. The
conversion to and from the core turns them into meshio's list
``[[dim, (tag, master), affine or None, (n, 2) point-index pairs], ...]`` and back, so they
never show in ``field_data``.
"""

import numpy as np

PERIODIC = "gmsh:periodic"
PERIODIC_AFFINE = "gmsh:periodic_affine"


def pop_periodic(field_data):
    """Removes the core's periodic entries from ``field_data``; meshio's list, or None."""
    links = field_data.pop(PERIODIC, None)
    affine = field_data.pop(PERIODIC_AFFINE, None)
    if links is None:
        return None
    links = np.asarray(links, dtype=np.int64)
    affine = np.zeros(0) if affine is None else np.asarray(affine, dtype=np.float64)
    periodic = []
    at = real = 0
    while at + 5 <= len(links):
        dim, tag, master, num_affine, pairs = (int(value) for value in links[at : at + 5])
        nodes = links[at + 5 : at + 5 + 2 * pairs].reshape(pairs, 2)
        values = affine[real : real + num_affine] if num_affine else None
        periodic.append([dim, (tag, master), values, nodes])
        at += 5 + 2 * pairs
        real += num_affine
    return periodic


def periodic_fields(periodic):
    """The core's field_data entries for meshio's ``gmsh_periodic`` (none for None)."""
    if periodic is None:
        return {}
    words, reals = [], []
    for dim, (tag, master), affine, pairs in periodic:
        pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
        affine = np.zeros(0) if affine is None else np.asarray(affine, dtype=np.float64).reshape(-1)
        words += [np.array([dim, tag, master, affine.size, len(pairs)], dtype=np.int64), pairs.reshape(-1)]
        reals.append(affine)
    return {
        PERIODIC: np.concatenate(words) if words else np.zeros(0, dtype=np.int64),
        PERIODIC_AFFINE: np.concatenate(reals) if reals else np.zeros(0),
    }
