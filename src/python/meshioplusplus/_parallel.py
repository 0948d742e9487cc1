"""Partitioned meshes: split a mesh into pieces (``partition``), and read or write one piece per
MPI rank (``read(path, comm=comm)``, ``write(path, piece, comm=comm)``) through mpi4py.

mpi4py is imported only when a communicator is given; the C++ core stays MPI-free: each rank runs
the ordinary reader on its own piece files, so a rank reads only its own bytes. The collective
steps are small: rank 0 writes the index file after gathering the pieces' array layouts (one
``gather``), and on a read rank 0 alone reads the index (PVTU, PVTP, XDMF) and broadcasts the
piece list, or its failure, to the others (one ``bcast``).

Pieces carry their global numbers: ``point_data["global_ids"]`` and ``cell_data["global_ids"]``
(int64), the point and cell numbers of the mesh they were cut from; ``partition`` sets them and
the partitioned reader keeps them. Points on piece boundaries appear in every piece that uses
them (a VTK-style partition, no ghost layer added); a file that carries ``vtkGhostType`` keeps it
as ordinary point/cell data.
"""

import functools
import os

import numpy as np

from . import _core
from ._capabilities import set_entry_point
from ._conversion import from_core
from ._dispatch import read, write
from ._exceptions import ReadError, WriteError
from ._format_extras.openfoam import processor_dirs as openfoam_processor_dirs
from ._format_extras.openfoam import read_processor as _read_openfoam_processor
from ._format_extras.vtkhdf import write_partitioned_main
from ._mesh import CellBlock, Mesh
from ._regions import Region, RegionKind, block_bases

GLOBAL_IDS = "global_ids"
#: The files the last partitioned read on this process opened (the index, then its pieces):
#: the reader's own accounting, so a test can check that a rank touched only its own bytes. The
#: PVTU / PVTP / XDMF index is read by rank 0 only (and broadcast), so it is listed on rank 0 only.
files_read = []
#: The bytes the last partitioned read on this process read (VTKHDF: the rows of its hyperslabs;
#: PVTU, PVTP, XDMF: the sizes of the files in ``files_read``).
bytes_read = 0
#: Formats with partitioned reads (one piece file per rank, plus an index / main file; Gmsh:
#: one file with ``$PartitionedEntities``, or the split files ``name_1.msh`` … of
#: ``Mesh.PartitionSplitMeshFiles=1``).
PARTITIONED_FORMATS = ("pvtu", "vtkhdf", "xdmf", "gmsh", "pvtp", "openfoam")
#: Formats with partitioned (collective) writes.
PARTITIONED_WRITE_FORMATS = ("pvtu", "vtkhdf", "xdmf", "pvtp")
#: The VTK XML partitioned kinds: index format → (the index's grid element, the piece format).
#: PVTU and PVTP share one reader and writer; only these names differ.
_VTK_XML_PIECES = {"pvtu": ("PUnstructuredGrid", "vtu"), "pvtp": ("PPolyData", "vtp")}


# --- partitioning --------------------------------------------------------------------------


def cell_partition(mesh, n, method="auto"):
    """One part number (0..n-1) per cell, block-major. ``method``: ``"metis"`` (the dual graph
    of the mesh cut by METIS through pymetis: cells sharing a facet are neighbours), ``"geometric"``
    (recursive coordinate bisection of the cell centroids: no dependency, balanced counts, more
    cut facets), or ``"auto"`` (METIS when pymetis is installed)."""
    num_cells = int(block_bases(mesh.cells)[-1])
    if n < 1:
        raise ValueError(f"partition: n must be >= 1, got {n}")
    if n == 1 or num_cells == 0:
        return np.zeros(num_cells, dtype=np.int64)
    if method == "auto":
        try:
            import pymetis  # noqa: F401

            method = "metis"
        except ImportError:
            method = "geometric"
    if method == "metis":
        return _metis_parts(mesh, n)
    if method == "geometric":
        return _bisection_parts(_centroids(mesh), n)
    raise ValueError(f"partition: unknown method {method!r} (metis, geometric or auto)")


def _cell_node_lists(mesh):
    for block in mesh.cells:
        if isinstance(block.data, np.ndarray):
            yield from block.data
        else:  # polyhedra: the nodes of all faces
            for cell in block.data:
                yield np.unique(np.concatenate([np.asarray(face).reshape(-1) for face in cell]))


def _metis_parts(mesh, n):
    try:
        import pymetis
    except ImportError as error:
        raise ImportError("partition(method='metis') needs pymetis: pip install pymetis") from error
    dims = [block.dim for block in mesh.cells if block.dim]
    top = max(dims) if dims else 1
    ncommon = {1: 1, 2: 2, 3: 3}.get(top, 2)
    result = pymetis.part_mesh(n, [np.asarray(c, dtype=np.int64) for c in _cell_node_lists(mesh)],
                               gtype=pymetis.GType.DUAL, ncommon=ncommon)
    return np.asarray(result.element_part, dtype=np.int64)


def _centroids(mesh):
    points = np.asarray(mesh.points, dtype=np.float64)
    parts = []
    for block in mesh.cells:
        if isinstance(block.data, np.ndarray) and block.data.ndim == 2:
            parts.append(points[block.data].mean(axis=1))
        else:
            parts.append(np.array([points[np.asarray(c)].mean(axis=0) for c in _cell_node_lists(Mesh(points, [block]))])
                         .reshape(-1, points.shape[1]))
    return np.concatenate(parts) if parts else np.zeros((0, points.shape[1]))


def _bisection_parts(centroids, n):
    parts = np.zeros(len(centroids), dtype=np.int64)

    def split(indices, first_part, count):
        if count == 1 or len(indices) == 0:
            parts[indices] = first_part
            return
        left_count = count // 2
        extent = centroids[indices].max(axis=0) - centroids[indices].min(axis=0)
        axis = int(np.argmax(extent))
        order = indices[np.argsort(centroids[indices, axis], kind="stable")]
        cut = len(order) * left_count // count
        split(order[:cut], first_part, left_count)
        split(order[cut:], first_part + left_count, count - left_count)

    split(np.arange(len(centroids)), 0, n)
    return parts


def partition(mesh, n, method="auto"):
    """Split ``mesh`` into ``n`` pieces (a list of Mesh), each with its cells, the points they
    use, point/cell data and regions restricted to the piece, and ``global_ids`` point and cell
    data naming the original numbers. See ``cell_partition`` for ``method``."""
    parts = cell_partition(mesh, n, method)
    return [extract_cells(mesh, np.flatnonzero(parts == p)) for p in range(n)]


def extract_cells(mesh, cells):
    """The sub-mesh of the given block-major cell numbers (sorted), with ``global_ids``."""
    cells = np.asarray(cells, dtype=np.int64)
    bases = block_bases(mesh.cells)
    points = np.asarray(mesh.points)
    blocks, data, used = [], {name: [] for name in mesh.cell_data}, []
    for b, block in enumerate(mesh.cells):
        local = cells[(cells >= bases[b]) & (cells < bases[b + 1])] - bases[b]
        if len(local) == 0:
            continue
        if isinstance(block.data, np.ndarray):
            rows = block.data[local]
            used.append(rows.reshape(-1))
        else:
            rows = [block.data[i] for i in local]
            used.extend(np.asarray(face).reshape(-1) for cell in rows for face in cell)
        blocks.append((block.type, rows))
        for name, per_block in mesh.cell_data.items():
            data[name].append(np.asarray(per_block[b])[local])
    point_ids = np.unique(np.concatenate(used)) if used else np.zeros(0, dtype=np.int64)
    renumber = np.full(len(points), -1, dtype=np.int64)
    renumber[point_ids] = np.arange(len(point_ids))
    new_blocks = []
    for cell_type, rows in blocks:
        if isinstance(rows, np.ndarray):
            new_blocks.append(CellBlock(cell_type, renumber[rows]))
        else:
            new_blocks.append(CellBlock(cell_type, [[renumber[np.asarray(face)] for face in cell] for cell in rows]))
    point_data = {name: np.asarray(values)[point_ids] for name, values in mesh.point_data.items()}
    point_data[GLOBAL_IDS] = point_ids.astype(np.int64)
    cell_renumber = np.full(int(bases[-1]), -1, dtype=np.int64)
    cell_renumber[cells] = np.arange(len(cells))
    data[GLOBAL_IDS] = [cells[(cells >= bases[b]) & (cells < bases[b + 1])]
                        for b in range(len(mesh.cells)) if np.any((cells >= bases[b]) & (cells < bases[b + 1]))]
    regions = []
    for region in mesh.regions:
        entries = np.asarray(region.entries, dtype=np.int64)
        if region.kind == RegionKind.POINT:
            mapped = renumber[entries]
            entries = mapped[mapped >= 0]
        elif region.kind == RegionKind.CELL:
            mapped = cell_renumber[entries]
            entries = mapped[mapped >= 0]
        else:
            mapped = cell_renumber[entries[:, 0]] if len(entries) else np.zeros(0, dtype=np.int64)
            entries = np.column_stack([mapped, entries[:, 1]])[mapped >= 0] if len(entries) else entries
        regions.append(Region(region.name, region.kind, region.dim, region.tag, entries))
    return Mesh(points[point_ids], new_blocks, point_data=point_data, cell_data=data,
                field_data=dict(mesh.field_data), regions=regions)


def merge(pieces):
    """One mesh from pieces: points concatenated (shared boundary points appear once per piece
    unless the pieces carry ``global_ids``, which then weld them), blocks appended in piece
    order, data joined, regions of the same name and kind joined."""
    pieces = list(pieces)
    if not pieces:
        raise ValueError("merge: no pieces")
    welded = all(GLOBAL_IDS in p.point_data for p in pieces)
    if welded:
        all_ids = np.concatenate([np.asarray(p.point_data[GLOBAL_IDS], dtype=np.int64) for p in pieces])
        unique_ids, first = np.unique(all_ids, return_index=True)
        points = np.concatenate([np.asarray(p.points) for p in pieces])[first]
        maps = []
        for p in pieces:
            maps.append(np.searchsorted(unique_ids, np.asarray(p.point_data[GLOBAL_IDS], dtype=np.int64)))
        point_data = {name: np.concatenate([np.asarray(p.point_data[name]) for p in pieces])[first]
                      for name in pieces[0].point_data if all(name in p.point_data for p in pieces)}
    else:
        offsets = np.cumsum([0] + [len(p.points) for p in pieces])
        points = np.concatenate([np.asarray(p.points) for p in pieces])
        maps = [np.arange(len(p.points)) + offsets[i] for i, p in enumerate(pieces)]
        point_data = {name: np.concatenate([np.asarray(p.point_data[name]) for p in pieces])
                      for name in pieces[0].point_data if all(name in p.point_data for p in pieces)}
    cells, cell_data, regions = [], {}, {}
    names = [n for n in pieces[0].cell_data if all(n in p.cell_data for p in pieces)]
    cell_base = 0
    for p, mapping in zip(pieces, maps):
        for block in p.cells:
            if isinstance(block.data, np.ndarray):
                cells.append(CellBlock(block.type, mapping[block.data]))
            else:
                cells.append(CellBlock(block.type, [[mapping[np.asarray(f)] for f in c] for c in block.data]))
        for name in names:
            cell_data.setdefault(name, []).extend(p.cell_data[name])
        for region in p.regions:
            entries = np.asarray(region.entries, dtype=np.int64)
            if region.kind == RegionKind.POINT:
                entries = mapping[entries]
            elif region.kind == RegionKind.CELL:
                entries = entries + cell_base
            else:
                entries = entries + np.array([cell_base, 0])
            key = (region.name, region.kind)
            if key in regions:
                old = regions[key]
                joined = np.concatenate([old.entries, entries])
                if region.kind == RegionKind.POINT:
                    joined = np.unique(joined)
                regions[key] = Region(old.name, old.kind, old.dim, old.tag, joined)
            else:
                regions[key] = Region(region.name, region.kind, region.dim, region.tag, entries)
        cell_base += int(block_bases(p.cells)[-1])
    return Mesh(points, cells, point_data=point_data, cell_data=cell_data,
                field_data=dict(pieces[0].field_data), regions=list(regions.values()))


# --- one piece per rank --------------------------------------------------------------------


def rank_share(num_pieces, size, rank):
    """The piece numbers rank ``rank`` of ``size`` reads: a contiguous share, the first
    ``num_pieces % size`` ranks one more. With fewer pieces than ranks, ranks past the last
    piece get none (an empty mesh)."""
    base, extra = divmod(num_pieces, size)
    first = rank * base + min(rank, extra)
    return list(range(first, first + base + (1 if rank < extra else 0)))


def _format_of(path, file_format, writing=False):
    lower = str(os.fspath(path)).lower()
    name = file_format or ("pvtu" if lower.endswith(".pvtu") else
                           "pvtp" if lower.endswith(".pvtp") else
                           "vtkhdf" if lower.endswith((".vtkhdf", ".hdf")) else
                           "xdmf" if lower.endswith((".xdmf", ".xmf")) else
                           "gmsh" if lower.endswith(".msh") else
                           "openfoam" if lower.endswith(".foam") or _core.format_for_path(os.fspath(path)) == "openfoam"
                           else None)
    if name == "xmf":
        name = "xdmf"
    supported = PARTITIONED_WRITE_FORMATS if writing else PARTITIONED_FORMATS
    if name not in supported:
        raise ValueError(f"a communicator was given, but {os.fspath(path)!r} is not a partitioned format for "
                         f"{'writing' if writing else 'reading'}; partitioned "
                         f"{'writes' if writing else 'reads'} support: {', '.join(supported)}")
    return name


def _vtk_xml_sources(path, kind="pvtu"):
    """The Source attributes of the pieces a PVTU / PVTP index names (relative to its folder)."""
    import xml.etree.ElementTree as ElementTree

    try:
        root = ElementTree.parse(path).getroot()
    except (ElementTree.ParseError, OSError) as error:
        raise ReadError(f"{path}: not a readable {kind.upper()} index ({error})") from error
    element = _VTK_XML_PIECES[kind][0]
    grid = root.find(element)
    if grid is None:
        raise ReadError(f"{path}: no {element} element")
    return [piece.get("Source", "") for piece in grid.findall("Piece")]


def _index_from_root(comm, path, parse):
    """Collective: rank 0 alone runs ``parse()`` (reads the index, once) and broadcasts its
    result, or its failure, to every rank (one ``bcast``, which every rank reaches whatever
    happened on rank 0, so none hangs). Returns the result on every rank, or raises the same
    ReadError, naming the index, on every rank. The result must be picklable."""
    message = cause = None
    if comm.Get_rank() == 0:
        try:
            message = (None, parse())
        except ReadError as error:
            message, cause = (str(error), None), error
        except Exception as error:  # anything else must still reach the bcast
            message = (f"{path}: the index could not be read ({type(error).__name__}: {error})", None)
            cause = error
    message = comm.bcast(message, root=0)
    if not isinstance(message, tuple) or len(message) != 2:
        raise RuntimeError(f"{path}: the communicator's bcast did not deliver rank 0's index ({message!r})")
    failure, result = message
    if failure is not None:
        raise ReadError(failure) from cause
    return result


def read_piece(path, comm, file_format=None, ghost_cells=False, run_share=None):
    """This rank's share of a partitioned file (PVTU, PVTP, VTKHDF, XDMF spatial collection,
    Gmsh partitioned file or split files), as one Mesh (its pieces merged); reads only this
    rank's piece files (a Gmsh single file: the file, parsed whole). PVTU, PVTP and XDMF reads
    are collective: rank 0 alone reads the index and broadcasts its piece list (or its failure).
    ``ghost_cells`` (Gmsh only) adds the ghost cells of the rank's partitions (``vtkGhostType``).
    The rank's own reading is ``read_share(job)``, or ``run_share(job)`` where given — an
    isolated read's worker (``read(path, comm=comm, isolate=True)``)."""
    global bytes_read
    name = _format_of(path, file_format)
    if ghost_cells and name != "gmsh":
        raise ValueError(f"ghost_cells=True is offered for Gmsh-partitioned files (.msh) only, not for {name} "
                         f"({os.fspath(path)!r}); pieces of the other formats keep the vtkGhostType they carry")
    path = os.fspath(path)
    index = None
    if name in _VTK_XML_PIECES:  # rank 0 reads the index; the others get its piece list by bcast
        index = _index_from_root(comm, path, functools.partial(_vtk_xml_sources, path, name))
    elif name == "xdmf":
        index = _index_from_root(comm, path, functools.partial(_xdmf_piece_texts, path))
    job = {"format": name, "path": path, "rank": comm.Get_rank(), "size": comm.Get_size(), "index": index,
           "ghost_cells": ghost_cells}
    mesh, files, count = (run_share or read_share)(job)
    files_read[:] = files
    bytes_read = count
    return mesh


def read_share(job):
    """One rank's reading in a partitioned read, with no communication (the index of a format
    that has one came by bcast, in ``job``): ``(mesh, files_read, bytes_read)``."""
    readers = {"vtkhdf": _read_vtkhdf_share, "xdmf": _read_xdmf_share, "gmsh": _read_gmsh_share,
               "openfoam": _read_openfoam_share}
    mesh = readers.get(job["format"], _read_vtk_xml_share)(job)
    return mesh, list(files_read), bytes_read


def _read_vtk_xml_share(job):
    global bytes_read
    path, name, rank = job["path"], job["format"], job["rank"]
    folder = os.path.dirname(os.path.abspath(path))
    pieces = [os.path.join(folder, source) for source in job["index"]]
    mine = rank_share(len(pieces), job["size"], rank)
    for index in mine:
        if not os.path.exists(pieces[index]):
            raise ReadError(f"{path}: piece {index} ({pieces[index]}) for rank {rank} is missing")
    files_read.clear()
    if rank == 0:
        files_read.append(os.path.abspath(path))
    meshes = []
    for index in mine:
        meshes.append(read(pieces[index], _VTK_XML_PIECES[name][1]))
        files_read.append(os.path.abspath(pieces[index]))
    bytes_read = sum(os.path.getsize(f) for f in files_read)
    if not meshes:
        return Mesh(np.zeros((0, 3)), [])
    return meshes[0] if len(meshes) == 1 else merge(meshes)


def _pvtu_array_xml(name, values):
    values = np.asarray(values)
    kind = {"f": "Float", "i": "Int", "u": "UInt"}[values.dtype.kind]
    components = 1 if values.ndim == 1 else int(np.prod(values.shape[1:]))
    return f'<PDataArray type="{kind}{values.dtype.itemsize * 8}" Name="{name}" NumberOfComponents="{components}"/>'


def _piece_paths(path, number, kind="pvtu"):
    """(piece file, Source attribute) of piece ``number`` of the index ``path``: VTK's own
    layout, ``<stem>/<stem>_<number>.vtu`` (``.vtp`` for PVTP) beside the index."""
    stem = os.path.splitext(os.path.basename(path))[0]
    folder = os.path.join(os.path.dirname(os.path.abspath(path)), stem)
    extension = _VTK_XML_PIECES[kind][1]
    return os.path.join(folder, f"{stem}_{number}.{extension}"), f"{stem}/{stem}_{number}.{extension}"


def _write_one_piece(path, number, piece, options, kind="pvtu"):
    """Writes piece ``number`` (a .vtu, or a .vtp for PVTP); returns its layout for the index
    (or the error it met)."""
    target, source = _piece_paths(path, number, kind)
    error = None
    try:
        os.makedirs(os.path.dirname(target), exist_ok=True)
        write(target, piece, _VTK_XML_PIECES[kind][1], **options)
    except Exception as caught:  # under MPI every rank must still reach the gather
        error = f"piece {number}: {caught}"
    return {
        "error": error,
        "source": source,
        "points": np.asarray(piece.points).dtype.str,
        "point_data": [_pvtu_array_xml(n, v) for n, v in piece.point_data.items()],
        "cell_data": [_pvtu_array_xml(n, np.concatenate([np.asarray(a) for a in v]))
                      for n, v in piece.cell_data.items() if len(v)],
    }


def _write_pvtu_index(path, layouts, kind="pvtu"):
    from xml.sax.saxutils import quoteattr

    errors = [entry["error"] for entry in layouts if entry["error"]]
    if errors:
        return "; ".join(errors)
    reference = layouts[0]
    point_type = np.dtype(reference["points"])
    element = _VTK_XML_PIECES[kind][0]
    lines = ['<?xml version="1.0"?>',
             f'<VTKFile type="{element}" version="1.0" byte_order="LittleEndian" header_type="UInt64">',
             f'  <{element} GhostLevel="0">',
             '    <PPointData>', *("      " + x for x in reference["point_data"]), '    </PPointData>',
             '    <PCellData>', *("      " + x for x in reference["cell_data"]), '    </PCellData>',
             '    <PPoints>',
             f'      <PDataArray type="Float{point_type.itemsize * 8}" Name="Points" NumberOfComponents="3"/>',
             '    </PPoints>',
             *(f"    <Piece Source={quoteattr(entry['source'])}/>" for entry in layouts),
             f'  </{element}>', '</VTKFile>', '']
    stem = os.path.splitext(os.path.basename(path))[0]
    temporary = os.path.join(os.path.dirname(os.path.abspath(path)), f".{stem}.{kind}-index")
    with open(temporary, "w") as handle:
        handle.write("\n".join(lines))
    os.replace(temporary, path)  # atomic: readers see the old index or the new one
    return None


def write_pieces(path, pieces, **options):
    """Serial: writes every piece and the index (what ``write(path, piece, comm=…)`` does
    collectively, in one process — the CLI's ``partition``)."""
    path = os.fspath(path)
    write_one, write_index = _writers(_format_of(path, options.pop("file_format", None), writing=True))
    failure = write_index(path, [write_one(path, i, p, options) for i, p in enumerate(pieces)])
    if failure:
        raise WriteError(f"{path}: partitioned write failed: {failure}")


def _writers(name):
    """(write one piece, write the index) of a partitioned write format."""
    return {"pvtu": (_write_one_piece, _write_pvtu_index),
            "pvtp": (functools.partial(_write_one_piece, kind="pvtp"), functools.partial(_write_pvtu_index, kind="pvtp")),
            "vtkhdf": (_write_vtkhdf_partition, _write_vtkhdf_main),
            "xdmf": (_write_xdmf_piece, _write_xdmf_index)}[name]


def write_piece(path, piece, comm, file_format=None, **options):
    """Collective: every rank writes its piece (PVTU: ``<stem>/<stem>_<rank>.vtu``, PVTP the
    same with ``.vtp``; VTKHDF:
    ``<stem>_part<rank>.vtkhdf``; XDMF: ``<stem>_part<rank>.xdmf`` + ``.h5``); rank 0 gathers
    the pieces' layouts / outcomes and writes the index ``path`` naming all of them."""
    path = os.fspath(path)
    write_one, write_index = _writers(_format_of(path, file_format, writing=True))
    layout = write_one(path, comm.Get_rank(), piece, options)
    layouts = comm.gather(layout, root=0)
    failure = write_index(path, layouts) if comm.Get_rank() == 0 else None
    failure = comm.bcast(failure, root=0)
    if failure:
        raise WriteError(f"{path}: partitioned write failed: {failure}")


# --- partitioned VTKHDF ----------------------------------------------------------------------
# The HDF5 here is serial (no MPI-IO), so a collective write uses VTK's external-partitions
# layout (vtkHDFWriter.UseExternalPartitions): every rank writes its partition as an ordinary
# one-partition VTKHDF ``<stem>_part<rank>.vtkhdf`` beside the target, then rank 0 writes the
# main file, whose datasets are HDF5 virtual datasets over the partition files in rank order.
# vtkHDFReader (and any HDF5 reader) sees one file with NumberOfPoints.size partitions. A
# partitioned read takes the rank's contiguous share of the partitions by hyperslabs of the
# main file, so HDF5 opens only the partition files behind those rows.


def _vtkhdf_partition_path(path, number):
    """(partition file, its name relative to the main file's folder)."""
    stem = os.path.splitext(os.path.basename(path))[0]
    name = f"{stem}_part{number}.vtkhdf"
    return os.path.join(os.path.dirname(os.path.abspath(path)), name), name


def _write_vtkhdf_partition(path, number, piece, options):
    target, name = _vtkhdf_partition_path(path, number)
    error = None
    try:
        write(target, piece, "vtkhdf", **options)
    except Exception as caught:  # under MPI every rank must still reach the gather
        error = f"partition {number}: {caught}"
    return {"error": error, "source": name}


def _write_vtkhdf_main(path, layouts):
    errors = [entry["error"] for entry in layouts if entry["error"]]
    if errors:
        return "; ".join(errors)
    try:
        write_partitioned_main(path, [entry["source"] for entry in layouts])
    except Exception as caught:
        return str(caught)
    return None


def _read_vtkhdf_share(job):
    """This rank's contiguous share of the partitions of step 0 (rank_share's split), with
    global_ids (the file's own, else the numbering of a whole read) and the reader's
    accounting in files_read / bytes_read."""
    global bytes_read
    path = job["path"]
    reader = _core.open_vtkhdf_share(path, job["rank"], job["size"])
    _, point_data, cell_data, _ = reader.read_step(0)
    mesh = from_core(reader.read_mesh())
    files = [str(f) for f in mesh.field_data.pop("vtkhdf:files_read", [])]
    counted = mesh.field_data.pop("vtkhdf:bytes_read", [0])
    main = os.path.abspath(path)
    files_read.clear()
    files_read.append(main)
    files_read.extend(sorted(f for f in files if os.path.abspath(f) != main))
    bytes_read = int(np.asarray(counted).reshape(-1)[0])
    for name, values in point_data.items():
        mesh.point_data[name] = values
    for name, values in cell_data.items():
        mesh.cell_data[name] = values
    return _weld(mesh)


def _weld(mesh):
    """Points shared by several partitions of one share appear once (by ``global_ids``, as
    ``merge`` welds PVTU pieces)."""
    ids = mesh.point_data.get(GLOBAL_IDS)
    if ids is None or len(ids) == 0:
        return mesh
    unique, first, inverse = np.unique(np.asarray(ids), return_index=True, return_inverse=True)
    if len(unique) == len(ids):
        return mesh
    inverse = inverse.reshape(-1)
    mesh.points = np.asarray(mesh.points)[first]
    for name in list(mesh.point_data):
        mesh.point_data[name] = np.asarray(mesh.point_data[name])[first]
    mesh.cells = [CellBlock(block.type, inverse[block.data]) for block in mesh.cells]
    return mesh


# --- XDMF spatial collections ---------------------------------------------------------------
# The C++ XDMF reader merges a spatial collection into one mesh and has no call that reads one
# grid of it, so the partitioned layout is built here on the ordinary reader and writer: every
# rank writes its piece as an ordinary XDMF file ``<stem>_part<rank>.xdmf`` (+ its own
# ``<stem>_part<rank>.h5``) beside the target, and rank 0 writes the index: a
# ``GridType="Collection" CollectionType="Spatial"`` grid whose children are XIncludes of the
# pieces' grids. A read without a communicator (ours, VTK's vtkXdmfReader) follows the
# XIncludes and gives the union. A read with one takes the rank's share of the collection's
# children: an XInclude is read by reading the included file (one grid per file), an inline
# grid (collections written by other tools) by reading a one-grid copy of it whose heavy-data
# paths are made absolute, so only that grid's arrays are read.

_XINCLUDE = "{http://www.w3.org/2001/XInclude}include"


def _xdmf_piece_path(path, number):
    """(piece file, its name relative to the index's folder)."""
    stem = os.path.splitext(os.path.basename(path))[0]
    name = f"{stem}_part{number}.xdmf"
    return os.path.join(os.path.dirname(os.path.abspath(path)), name), name


def _write_xdmf_piece(path, number, piece, options):
    target, name = _xdmf_piece_path(path, number)
    error = None
    try:
        write(target, piece, "xdmf", **options)
    except Exception as caught:  # under MPI every rank must still reach the gather
        error = f"piece {number}: {caught}"
    return {"error": error, "source": name}


def _write_xdmf_index(path, layouts):
    from xml.sax.saxutils import quoteattr

    errors = [entry["error"] for entry in layouts if entry["error"]]
    if errors:
        return "; ".join(errors)
    lines = ['<?xml version="1.0"?>',
             '<Xdmf Version="3.0" xmlns:xi="http://www.w3.org/2001/XInclude">',
             '  <Domain>',
             '    <Grid Name="partitioned" GridType="Collection" CollectionType="Spatial">',
             *(f'      <xi:include href={quoteattr(entry["source"])} xpointer="xpointer(/Xdmf/Domain/Grid)"/>'
               for entry in layouts),
             '    </Grid>', '  </Domain>', '</Xdmf>', '']
    stem = os.path.splitext(os.path.basename(path))[0]
    temporary = os.path.join(os.path.dirname(os.path.abspath(path)), f".{stem}.xdmf-index")
    try:
        with open(temporary, "w") as handle:
            handle.write("\n".join(lines))
        os.replace(temporary, path)  # atomic: readers see the old index or the new one
    except OSError as caught:
        return str(caught)
    return None


def _local(tag):
    return tag.rsplit("}", 1)[-1]


def _xdmf_pieces(path):
    """The pieces of an XDMF file: the children (Grid or XInclude elements) of its top spatial
    collection; a file without one is one piece per top-level grid."""
    import xml.etree.ElementTree as ElementTree

    try:
        root = ElementTree.parse(path).getroot()
    except (ElementTree.ParseError, OSError) as error:
        raise ReadError(f"{path}: not a readable XDMF file ({error})") from error
    domain = next((child for child in root if _local(child.tag) == "Domain"), None)
    if domain is None:
        raise ReadError(f"{path}: no Domain element")
    grids = [child for child in domain if _local(child.tag) == "Grid" or child.tag == _XINCLUDE]
    for grid in grids:
        if _local(grid.tag) == "Grid" and grid.get("GridType") == "Collection" and \
                grid.get("CollectionType", "Spatial") != "Spatial":
            raise ReadError(f"{path}: a read with a communicator needs a spatial collection, this file has a "
                            f"{grid.get('CollectionType')} collection (read it without comm=, or with the "
                            f"time-series reader)")
    if len(grids) == 1 and _local(grids[0].tag) == "Grid" and grids[0].get("GridType") == "Collection":
        if grids[0].get("CollectionType", "Spatial") != "Spatial":
            raise ReadError(f"{path}: a read with a communicator needs a spatial collection, the top grid is a "
                            f"{grids[0].get('CollectionType')} collection (read it without comm=)")
        grids = [child for child in grids[0] if _local(child.tag) == "Grid" or child.tag == _XINCLUDE]
    if not grids:
        raise ReadError(f"{path}: no Grid in the Domain")
    return grids


def _xdmf_heavy_files(element, folder):
    """The HDF5 / binary files the DataItems under ``element`` name (absolute)."""
    files = []
    for item in element.iter():
        if _local(item.tag) != "DataItem" or item.get("Format") not in ("HDF", "Binary"):
            continue
        text = (item.text or "").strip()
        name = text.split(":", 1)[0] if item.get("Format") == "HDF" else text
        if name:
            full = os.path.normpath(os.path.join(folder, name))
            if full not in files:
                files.append(full)
    return files


def _read_xdmf_grid(path, number, element):
    """One piece of the collection: (mesh, files it read)."""
    import tempfile
    import xml.etree.ElementTree as ElementTree

    folder = os.path.dirname(os.path.abspath(path))
    if element.tag == _XINCLUDE:
        href = element.get("href")
        if not href:
            raise ReadError(f"{path}: piece {number} is an XInclude without href (same-document includes are "
                            f"not split by a partitioned read; read without comm=)")
        target = os.path.join(folder, href)
        if not os.path.exists(target):
            raise ReadError(f"{path}: piece {number} ({target}) is missing")
        included = ElementTree.parse(target).getroot()
        return read(target, "xdmf"), [os.path.abspath(target), *_xdmf_heavy_files(included, os.path.dirname(target))]
    # an inline grid: a one-grid copy with absolute heavy-data paths
    copy = ElementTree.fromstring(ElementTree.tostring(element))
    for item in copy.iter():
        if _local(item.tag) == "DataItem" and item.get("Format") in ("HDF", "Binary") and item.text:
            text = item.text.strip()
            name, _, dataset = text.partition(":") if item.get("Format") == "HDF" else (text, "", "")
            full = os.path.normpath(os.path.join(folder, name))
            item.text = f"{full}:{dataset}" if item.get("Format") == "HDF" else full
    document = ('<?xml version="1.0"?>\n<Xdmf Version="3.0" xmlns:xi="http://www.w3.org/2001/XInclude"><Domain>'
                + ElementTree.tostring(copy, encoding="unicode") + "</Domain></Xdmf>\n")
    handle, temporary = tempfile.mkstemp(suffix=".xdmf", prefix="mio-grid-")
    try:
        with os.fdopen(handle, "w") as stream:
            stream.write(document)
        try:
            mesh = read(temporary, "xdmf")
        except ReadError as error:
            raise ReadError(f"{path}: grid {number} of the spatial collection: {error}") from error
    finally:
        os.remove(temporary)
    return mesh, _xdmf_heavy_files(element, folder)


def _xdmf_piece_texts(path):
    """The pieces of ``path`` (``_xdmf_pieces``) as XML text, for the bcast: an XInclude element
    or an inline Grid, each a self-contained element (namespaces declared on it)."""
    import xml.etree.ElementTree as ElementTree

    texts = []
    for grid in _xdmf_pieces(path):
        grid.tail = None  # the text after the element is not part of it
        texts.append(ElementTree.tostring(grid, encoding="unicode"))
    return texts


def _read_xdmf_share(job):
    """This rank's share (rank_share) of the grids of the top spatial collection, merged.
    Rank 0 read the index and broadcast its pieces (XInclude elements or inline grids, as XML
    text: ``job["index"]``); every rank parses only its own and reads only their files."""
    import xml.etree.ElementTree as ElementTree

    global bytes_read
    path, grids, rank = job["path"], job["index"], job["rank"]
    mine = rank_share(len(grids), job["size"], rank)
    files_read.clear()
    if rank == 0:
        files_read.append(os.path.abspath(path))
    meshes = []
    for number in mine:
        try:
            mesh, files = _read_xdmf_grid(path, number, ElementTree.fromstring(grids[number]))
        except ReadError as error:
            raise ReadError(f"{error} (rank {rank})") from error
        meshes.append(mesh)
        files_read.extend(f for f in files if f not in files_read)
    bytes_read = sum(os.path.getsize(f) for f in files_read if os.path.exists(f))
    if not meshes:
        return Mesh(np.zeros((0, 3)), [])
    return meshes[0] if len(meshes) == 1 else merge(meshes)


# --- Gmsh partitioned meshes -----------------------------------------------------------------
# gmsh -part N (or gmsh.model.mesh.partition(N)) writes one MSH 4.1 file whose $PartitionedEntities
# give every element block its partition, or, with Mesh.PartitionSplitMeshFiles=1, one file per
# partition, ``name_1.msh`` … ``name_N.msh`` (no ``name.msh``). A read with a communicator of
# ``name.msh`` takes the split files when there are any (numbered from 1, up to the first
# missing number) and gives rank r its rank_share of them; otherwise it reads ``name.msh`` itself
# and keeps the rank's share of its partitions. Either way the C++ reader selects: it is given
# the partitions to keep (gmsh::ReadOptions, through ``_core.read_gmsh_partitions``),
# allocates only their cells and the nodes they use,
# and adds ``global_ids`` — Gmsh's node and element tags, which are global across partitions and
# split files, so the pieces of one rank weld by them. Ghost cells are left out (gmsh.hpp) unless
# ``ghost_cells=True``: then they come too, flagged by ``vtkGhostType`` (0 owned, 1 ghost /
# duplicate point), and a rank holding several split files keeps each cell once (owned wins).


def gmsh_partition_files(path):
    """The split partition files of the Gmsh target ``path`` (``name_1.msh`` …), in order."""
    stem, extension = os.path.splitext(os.path.abspath(path))
    files, number = [], 1
    while os.path.exists(f"{stem}_{number}{extension}"):
        files.append(f"{stem}_{number}{extension}")
        number += 1
    return files


def _read_gmsh_partitions(path, partitions=(), rank_share=None, ghost_cells=False):
    """Gmsh partitions of one MSH file, selected by the C++ reader (gmsh::ReadOptions): the
    partition numbers ``partitions`` (from 1), or with ``rank_share=(rank, ranks)`` that rank's
    contiguous share of all of them; ``ghost_cells`` adds their ghost cells (vtkGhostType)."""
    rank, ranks = rank_share if rank_share is not None else (0, 0)
    return from_core(_core.read_gmsh_partitions(os.fspath(path), list(partitions), rank, ranks, ghost_cells))


GHOST_TYPE = "vtkGhostType"


def _keep_cells(mesh, keep):
    """``mesh`` with only the cells where the per-block masks ``keep`` are true (blocks, cell
    data, Cell and Side regions follow; points stay)."""
    renumber = np.full(sum(len(m) for m in keep), -1, dtype=np.int64)
    flat = np.concatenate(keep) if keep else np.zeros(0, dtype=bool)
    renumber[flat] = np.arange(int(flat.sum()))
    cells = [CellBlock(block.type, np.asarray(block.data)[mask]) for block, mask in zip(mesh.cells, keep)]
    cell_data = {name: [np.asarray(values)[mask] for values, mask in zip(per_block, keep)]
                 for name, per_block in mesh.cell_data.items()}
    regions = []
    for region in mesh.regions:
        entries = np.asarray(region.entries, dtype=np.int64)
        if region.kind == RegionKind.CELL:
            entries = renumber[entries]
            entries = entries[entries >= 0]
        elif region.kind != RegionKind.POINT and len(entries):
            mapped = renumber[entries[:, 0]]
            entries = np.column_stack([mapped, entries[:, 1]])[mapped >= 0]
        regions.append(Region(region.name, region.kind, region.dim, region.tag, entries))
    return Mesh(mesh.points, cells, point_data=dict(mesh.point_data), cell_data=cell_data,
                field_data=dict(mesh.field_data), regions=regions)


def _merge_with_ghosts(meshes):
    """One rank's split files merged, each cell once: a ghost in one file that another of the
    rank's files owns (or that an earlier file has as a ghost too) is dropped; a point is owned
    (vtkGhostType 0) when any file owns it — its owner partition is one of the rank's."""
    owned = np.concatenate([np.concatenate(m.cell_data[GLOBAL_IDS])[np.concatenate(m.cell_data[GHOST_TYPE]) == 0]
                            if m.cells else np.zeros(0, dtype=np.int64) for m in meshes])
    seen_ghosts = np.zeros(0, dtype=np.int64)
    kept = []
    for mesh in meshes:
        keep = []
        for ids, ghost in zip(mesh.cell_data[GLOBAL_IDS], mesh.cell_data[GHOST_TYPE]):
            ids, ghost = np.asarray(ids), np.asarray(ghost)
            drop = (ghost != 0) & (np.isin(ids, owned) | np.isin(ids, seen_ghosts))
            keep.append(~drop)
            seen_ghosts = np.concatenate([seen_ghosts, ids[ghost != 0]])
        kept.append(_keep_cells(mesh, keep))
    merged = merge(kept)
    # merge takes each welded point's data from its first piece; owned anywhere means owned
    ids = np.asarray(merged.point_data[GLOBAL_IDS])
    ghost_type = np.ones(len(ids), dtype=np.uint8)
    for mesh in meshes:
        mine = np.asarray(mesh.point_data[GLOBAL_IDS])[np.asarray(mesh.point_data[GHOST_TYPE]) == 0]
        ghost_type[np.isin(ids, mine)] = 0
    merged.point_data[GHOST_TYPE] = ghost_type
    return merged


def _read_gmsh_share(job):
    global bytes_read
    path, rank, size, ghost_cells = job["path"], job["rank"], job["size"], job["ghost_cells"]
    files = gmsh_partition_files(path)
    files_read.clear()
    if not files:
        if not os.path.exists(path):
            stem, extension = os.path.splitext(os.path.basename(path))
            raise ReadError(f"{path}: no such file, and no split partition files {stem}_1{extension}, "
                            f"{stem}_2{extension} … beside it: a read with a communicator reads a Gmsh-partitioned "
                            f"file (gmsh -part N, $PartitionedEntities) or the split files of "
                            f"Mesh.PartitionSplitMeshFiles=1")
        mesh = _read_gmsh_partitions(path, rank_share=(rank, size), ghost_cells=ghost_cells)
        files_read.append(os.path.abspath(path))
        bytes_read = os.path.getsize(path)
        return mesh
    meshes = []
    for number in rank_share(len(files), size, rank):
        # split file name_k.msh holds partition k (and copies of entities it shares with others,
        # which the reader leaves to their owning partition's file)
        meshes.append(_read_gmsh_partitions(files[number], [number + 1], ghost_cells=ghost_cells))
        files_read.append(files[number])
    bytes_read = sum(os.path.getsize(f) for f in files_read)
    if not meshes:  # more ranks than split files: empty, with the keys of a single file's empty share
        point_data, cell_data = {GLOBAL_IDS: np.zeros(0, dtype=np.int64)}, {GLOBAL_IDS: []}
        if ghost_cells:
            point_data[GHOST_TYPE], cell_data[GHOST_TYPE] = np.zeros(0, dtype=np.uint8), []
        return Mesh(np.zeros((0, 3)), [], point_data=point_data, cell_data=cell_data)
    if len(meshes) == 1:
        return meshes[0]
    return _merge_with_ghosts(meshes) if ghost_cells else merge(meshes)


# --- OpenFOAM decomposed cases ---------------------------------------------------------------
# decomposePar writes one case per processor (processor0/ … with constant/polyMesh and the time
# directories); each is an ordinary case to the core's reader, whose point and cell data
# "global_ids" are decomposePar's pointProcAddressing / cellProcAddressing, so a rank's
# processors weld into one piece by them. Listing the processor directories is a directory read
# on every rank (no index to broadcast).


def _read_openfoam_share(job):
    """This rank's ``rank_share`` of the processor directories of the case at ``path`` (merged,
    welded by ``global_ids``); an undecomposed case is one piece, rank 0's."""
    global bytes_read
    path, rank, size = job["path"], job["rank"], job["size"]
    folders = openfoam_processor_dirs(path)
    files_read.clear()
    if not folders:
        if rank != 0:
            return Mesh(np.zeros((0, 3)), [])
        files_read.append(os.path.abspath(path))
        return read(path, "openfoam")
    meshes = []
    for number in rank_share(len(folders), size, rank):
        meshes.append(_read_openfoam_processor(folders[number]))
        files_read.append(os.path.abspath(folders[number]))
    bytes_read = sum(os.path.getsize(os.path.join(directory, name))
                     for folder in files_read for directory, _, names in os.walk(folder) for name in names)
    if not meshes:
        return Mesh(np.zeros((0, 3)), [], point_data={GLOBAL_IDS: np.zeros(0, dtype=np.int64)}, cell_data={GLOBAL_IDS: []})
    return meshes[0] if len(meshes) == 1 else merge(meshes)


def device_for_rank(comm, device_count=None):
    """The CUDA device this rank should use: its rank among the ranks on the same node, modulo
    the node's device count (CuPy asked when ``device_count`` is not given). Use it as
    ``to_cupy(piece, device=device_for_rank(comm))``."""
    from mpi4py import MPI

    local_rank = comm.Split_type(MPI.COMM_TYPE_SHARED).Get_rank()
    if device_count is None:
        import cupy

        device_count = cupy.cuda.runtime.getDeviceCount()
    if device_count < 1:
        raise RuntimeError("no CUDA device on this node")
    return local_rank % device_count


# An isolated read's worker (floor 8 beside this one) reaches a rank's reading through this.
set_entry_point("rank_share", read_share)
