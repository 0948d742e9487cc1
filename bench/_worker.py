"""One benchmark measurement in a clean process; prints a JSON line.

usage: _worker.py TOOL OPERATION VARIANT PATH REPEAT
  TOOL      meshioplusplus | meshio | vtk | meshioplusplus17 | ansys-mapdl-reader | pyuff | lsdyna-mesh-reader | ccx2paraview
            | vtk-ensight | febio-python
  OPERATION read | write (write reads PATH's mesh first, untimed, then writes VARIANT)
"""

import json

import numpy as np
import os
import resource
import shutil
import sys
import tempfile
import time


def rss_now_kib():
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def io_counters():
    """/proc/self/io's rchar (bytes through read/pread, page cache or not) and read_bytes (bytes
    the process made the kernel fetch from the disk, mapped pages included)."""
    try:
        with open("/proc/self/io") as counters:
            pairs = (line.split(":") for line in counters)
            return {k: int(v) for k, v in pairs if k in ("rchar", "read_bytes")}
    except OSError:
        return {}


def reset_peak_rss():
    """Resets VmHWM (Linux >= 4.0) so import-time peaks do not count as the read's."""
    try:
        with open("/proc/self/clear_refs", "w") as handle:
            handle.write("5")
    except OSError:
        pass


def peak_rss_kib():
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


MESHIO_WRITE_OPTIONS = {
    "vtu-ascii": ("vtu", {"binary": False}),
    "vtu-base64": ("vtu", {"binary": True, "compression": None}),
    "vtu-zlib": ("vtu", {"binary": True, "compression": "zlib"}),
    "vtk-binary": ("vtk", {"binary": True}),
    "vtk-ascii": ("vtk", {"binary": False}),
}
MESHIO_WRITE_OPTIONS.update({
    # meshio's "gmsh" writer is 4.1 and "gmsh22" is 2.2 (each fixes fmt_version itself).
    "msh41-binary": ("gmsh", {"binary": True}),
    "msh41-ascii": ("gmsh", {"binary": False}),
    "msh22-binary": ("gmsh22", {"binary": True}),
    "msh22-ascii": ("gmsh22", {"binary": False}),
    "stl-ascii": ("stl", {"binary": False}),
    "stl-binary": ("stl", {"binary": True}),
    "ply-ascii": ("ply", {"binary": False}),
    "ply-binary": ("ply", {"binary": True}),
    "obj": ("obj", {}),
    "off": ("off", {}),
    "medit-ascii": ("medit", {}),
    "abaqus": ("abaqus", {}),
    "nastran": ("nastran", {}),
    "su2": ("su2", {}),
    "ugrid-ascii": ("ugrid", {}),
    "ugrid-b8": ("ugrid", {}),
    "tetgen": ("tetgen", {}),
    "avsucd": ("avsucd", {}),
    "tecplot": ("tecplot", {}),
    "dolfin": ("dolfin-xml", {}),
    "flac3d-ascii": ("flac3d", {"binary": False}),
    "flac3d-binary": ("flac3d", {"binary": True}),
    "mdpa": ("mdpa", {}),
    "permas": ("permas", {}),
    "netgen": ("netgen", {}),
    "wkt": ("wkt", {}),
    "svg": ("svg", {}),
    "ansys-ascii": ("ansys", {"binary": False}),
    "ansys-binary": ("ansys", {"binary": True}),
    "neuroglancer": ("neuroglancer", {}),
})
OUR_WRITE_OPTIONS = dict(MESHIO_WRITE_OPTIONS, **{
    "vtu-raw": ("vtu", {"binary": True, "compression": None, "appended": True}),
    "vtu-raw-zlib": ("vtu", {"binary": True, "compression": "zlib", "appended": True}),
    "medit-binary": ("medit", {}),
    # The rest of VTK's family (bench_vtk_family.py's structured/partitioned rows).
    "vtp-raw": ("vtp", {"binary": True, "compression": None, "appended": True}),
    "vtp-zlib": ("vtp", {"binary": True, "compression": "zlib"}),
    "vts-raw": ("vts", {"binary": True, "compression": None, "appended": True}),
    "vtr-raw": ("vtr", {"binary": True, "compression": None, "appended": True}),
    "vti-raw": ("vti", {"binary": True, "compression": None, "appended": True}),
    "pvtu-raw": ("pvtu", {"pieces": 4, "binary": True, "compression": None, "appended": True}),
    "vtkhdf": ("vtkhdf", {}),
    "xdmf": ("xdmf", {}),  # HDF heavy data, gzip (ab_packages.py's HDF5 rows)
    "ansys_cdb": ("ansys_cdb", {}),  # meshio has no .cdb
    "unv": ("unv", {}),  # meshio has no universal file
    "lsdyna": ("lsdyna", {}),  # meshio has no LS-DYNA keyword deck
    "freefem": ("freefem", {}),  # meshio has no FreeFEM .msh
    "triangle": ("triangle", {}),  # meshio has no Triangle files
    "mfem": ("mfem", {}),  # meshio has no MFEM mesh
    "code_aster": ("code_aster", {}),  # meshio has no code_aster .mail
    "mphtxt": ("mphtxt", {}),  # meshio has no COMSOL .mphtxt
    "ensight": ("ensight", {}),  # meshio has no EnSight Gold (C Binary)
    "ensight-ascii": ("ensight", {"binary": False}),
    # The FE decks of the twentieth session (meshio has none of them).
    "elmer": ("elmer", {}),
    "z88": ("z88", {}),
    "femap": ("femap", {}),
    "patran": ("patran", {}),
    "libmesh-ascii": ("libmesh", {"binary": False}),
    "libmesh-binary": ("libmesh", {"binary": True}),
    "febio": ("febio", {}),
})
# File extension of each variant (or of its stem, the part before the first '-').
EXTENSIONS = {"msh41": "msh", "msh22": "msh", "medit": "mesh", "abaqus": "inp", "nastran": "bdf",
              "medit-binary": "meshb", "ugrid-b8": "b8.ugrid", "tetgen": "node", "avsucd": "avs",
              "tecplot": "dat", "dolfin": "xml", "permas": "dato", "netgen": "vol", "flac3d": "f3grid", "ansys": "msh",
              "ansys_cdb": "cdb", "frd": "frd", "lsdyna": "k", "freefem": "freefem.msh", "code_aster": "mail",
              "triangle": "triangle.node", "mfem": "mfem.mesh", "ensight": "case", "femap": "neu", "patran": "pat",
              "libmesh-ascii": "xda", "libmesh-binary": "xdr", "febio": "feb"}
# Formats without an extension (meshio registers neuroglancer with none): read by name.
# FreeFEM's .msh (shared with Gmsh and Fluent) is named too, so meshio and 17.21 read it as FreeFEM.
READ_FORMATS = {".neuroglancer": "neuroglancer", ".freefem.msh": "freefem", ".triangle.node": "triangle", ".mfem.mesh": "mfem",
                # an Elmer mesh is a directory; 17.21 takes these by name
                ".elmer": "elmer", ".z88": "z88", ".neu": "femap", ".pat": "patran", ".feb": "febio"}


def extension_of(variant):
    return EXTENSIONS.get(variant) or EXTENSIONS.get(variant.split("-")[0], variant.split("-")[0])


def input_bytes(path):
    """Bytes a read parses: TetGen's .node comes with its .ele, a .pvtu with its pieces, an
    Elmer mesh directory its files, an EnSight .case the files of its stem beside it."""
    if os.path.isdir(path):
        return sum(os.path.getsize(os.path.join(root, name)) for root, _, names in os.walk(path) for name in names)
    if path.endswith(".case"):
        folder, stem = os.path.split(path[: -len(".case")])
        return sum(os.path.getsize(os.path.join(folder or ".", name)) for name in os.listdir(folder or ".")
                   if name.startswith(stem + "."))
    size = os.path.getsize(path)
    if path.endswith(".pvtu"):
        import xml.etree.ElementTree as ElementTree

        folder = os.path.dirname(path)
        for piece in ElementTree.parse(path).getroot().iter("Piece"):
            size += os.path.getsize(os.path.join(folder, piece.get("Source")))
    if path.endswith(".node") and os.path.exists(path[: -len(".node")] + ".ele"):
        size += os.path.getsize(path[: -len(".node")] + ".ele")
    return size


def array_bytes(mesh):
    """Bytes of the arrays a read returned; a structured grid's points and cells that
    meshio++ has not made yet (made on first use, like VTK's implicit ones) count nothing."""
    total = 0 if getattr(mesh, "points_deferred", False) else mesh.points.nbytes
    for block in mesh.cells:
        if getattr(block, "is_deferred", False):
            continue
        data = block.data if hasattr(block, "data") else block[1]
        total += data.nbytes if hasattr(data, "nbytes") else sum(np.asarray(c).nbytes for c in data)
    for values in mesh.point_data.values():
        total += values.nbytes
    for per_block in mesh.cell_data.values():
        total += sum(a.nbytes for a in per_block)
    return total


def with_geometry_made(read):
    """meshio++'s read followed by first use of every point and cell (a structured grid's
    deferred geometry made), to compare with VTK's reader plus its explicit conversion."""

    def read_made(path):
        mesh, _ = read(path)
        mesh.points  # noqa: B018
        for block in mesh.cells:
            block.data  # noqa: B018
        return mesh, array_bytes(mesh)

    return read_made


# meshio++ 17.21 (the earlier implementation) has no appended-raw encoding and no `pieces`
# option: its nearest settings (inline binary, uncompressed; one .pvtu piece per `part_key`).
OLD_MPP_WRITE_OPTIONS = {
    "ansys_cdb": ("ansysInp", {}),  # 17.21's name for .cdb
    "freefem": ("freefem", {}),  # meshio has none; 17.21 does
    "triangle": ("triangle", {}),
    "mfem": ("mfem", {}),
    "code_aster": ("code_aster", {}),
    "mphtxt": ("mphtxt", {}),
    "vtp-raw": ("vtp", {"binary": True, "compression": None}),
    "vtp-zlib": ("vtp", {"binary": True, "compression": "zlib"}),
    "vts-raw": ("vts", {"binary": True, "compression": None}),
    "vtr-raw": ("vtr", {"binary": True, "compression": None}),
    "vti-raw": ("vti", {"binary": True, "compression": None}),
    "pvtu-raw": ("pvtu", {"binary": True, "compression": None}),
    "vtkhdf": ("vtkhdf", {"compression": None}),
}


def meshio_like(module_name, old_meshioplusplus=False):
    module = __import__(module_name)

    def read(path):
        file_format = next((name for suffix, name in READ_FORMATS.items() if path.endswith(suffix)), None)
        mesh = module.read(path, file_format) if file_format else module.read(path)
        return mesh, array_bytes(mesh)

    def write(mesh, variant, target):
        options = (OUR_WRITE_OPTIONS if module_name == "meshioplusplus" else MESHIO_WRITE_OPTIONS).get(variant)
        if old_meshioplusplus:
            options = OLD_MPP_WRITE_OPTIONS.get(variant, options)
        if options is None:
            raise SystemExit(f"{module_name} cannot write {variant}")
        file_format, kwargs = options
        module.write(target, mesh, file_format=file_format, **kwargs)

    return read, write


# VTK's reader and writer class of each file extension.
VTK_XML_CLASSES = {
    ".vtu": ("vtkXMLUnstructuredGridReader", "vtkXMLUnstructuredGridWriter"),
    ".vtp": ("vtkXMLPolyDataReader", "vtkXMLPolyDataWriter"),
    ".vts": ("vtkXMLStructuredGridReader", "vtkXMLStructuredGridWriter"),
    ".vtr": ("vtkXMLRectilinearGridReader", "vtkXMLRectilinearGridWriter"),
    ".vti": ("vtkXMLImageDataReader", "vtkXMLImageDataWriter"),
    ".pvtu": ("vtkXMLPUnstructuredGridReader", "vtkXMLUnstructuredGridWriter"),
    ".vtkhdf": ("vtkHDFReader", "vtkHDFWriter"),
    ".vtk": ("vtkUnstructuredGridReader", "vtkUnstructuredGridWriter"),
}


def vtk_array_bytes(data_set):
    """Bytes of the arrays VTK's reader returns: points (where explicit), cells (where
    explicit) and every point/cell data array."""
    import vtk
    from vtk.util.numpy_support import vtk_to_numpy

    total = 0
    if isinstance(data_set, vtk.vtkPointSet) and data_set.GetPoints() is not None:
        total += vtk_to_numpy(data_set.GetPoints().GetData()).nbytes
    cell_arrays = [data_set.GetCells()] if isinstance(data_set, vtk.vtkUnstructuredGrid) else []
    if isinstance(data_set, vtk.vtkPolyData):
        cell_arrays = [data_set.GetVerts(), data_set.GetLines(), data_set.GetStrips(), data_set.GetPolys()]
    for cells in cell_arrays:
        if cells is not None and cells.GetNumberOfCells():
            total += vtk_to_numpy(cells.GetConnectivityArray()).nbytes + vtk_to_numpy(cells.GetOffsetsArray()).nbytes
    for attributes in (data_set.GetPointData(), data_set.GetCellData()):
        for i in range(attributes.GetNumberOfArrays()):
            total += vtk_to_numpy(attributes.GetArray(i)).nbytes
    return total


def vtk_tool(explicit_cells=False):
    """VTK's readers and writers. explicit_cells: a read also turns a structured grid into an
    unstructured one with explicit points and hexahedra (vtkAppendFilter, what PyVista's
    cast_to_unstructured_grid does) -- the data meshio's model holds."""
    import vtk

    def vtk_class(path, which):
        return getattr(vtk, VTK_XML_CLASSES[os.path.splitext(path)[1]][which])()

    def read(path):
        reader = vtk_class(path, 0)
        reader.SetFileName(path)
        reader.Update()
        grid = reader.GetOutput()
        if explicit_cells:
            to_unstructured = vtk.vtkAppendFilter()
            to_unstructured.SetInputData(grid)
            to_unstructured.Update()
            grid = to_unstructured.GetOutput()
        return grid, vtk_array_bytes(grid)

    def read_pieces(path):
        """The pieces of a .pvtu, each read alone (the input of VTK's piece-wise write)."""
        import xml.etree.ElementTree as ElementTree

        folder = os.path.dirname(path)
        grids = []
        for piece in ElementTree.parse(path).getroot().iter("Piece"):
            reader = vtk.vtkXMLUnstructuredGridReader()
            reader.SetFileName(os.path.join(folder, piece.get("Source")))
            reader.Update()
            grids.append(reader.GetOutput())
        return grids, sum(vtk_array_bytes(g) for g in grids)

    def write_pvtu(pieces, target):
        # vtkXMLPUnstructuredGridWriter fed one in-memory grid writes the whole grid into
        # every piece; a serial VTK program writes its pieces with the serial writer and the
        # small index beside them, which is what is timed here.
        stem = os.path.splitext(os.path.basename(target))[0]
        folder = os.path.dirname(target)
        for k, grid in enumerate(pieces):
            writer = vtk.vtkXMLUnstructuredGridWriter()
            writer.SetDataModeToAppended()
            writer.EncodeAppendedDataOff()
            writer.SetCompressorTypeToNone()
            writer.SetFileName(os.path.join(folder, f"{stem}_{k}.vtu"))
            writer.SetInputData(grid)
            writer.Write()
        # The index is a few hundred bytes of XML; VTK has no call that writes it alone
        # (its parallel writer writes pieces with it), so it is written here.
        arrays = {"PPointData": pieces[0].GetPointData(), "PCellData": pieces[0].GetCellData()}
        lines = ['<?xml version="1.0"?>',
                 '<VTKFile type="PUnstructuredGrid" version="1.0" byte_order="LittleEndian" header_type="UInt64">',
                 '<PUnstructuredGrid GhostLevel="0">']
        for tag, attributes in arrays.items():
            lines.append(f"<{tag}>")
            for i in range(attributes.GetNumberOfArrays()):
                array = attributes.GetArray(i)
                lines.append(f'<PDataArray type="{array.GetDataTypeAsString().title().replace(" ", "")}" '
                             f'Name="{array.GetName()}" NumberOfComponents="{array.GetNumberOfComponents()}"/>')
            lines.append(f"</{tag}>")
        lines.append('<PPoints><PDataArray type="Float64" Name="Points" NumberOfComponents="3"/></PPoints>')
        lines += [f'<Piece Source="{stem}_{k}.vtu"/>' for k in range(len(pieces))]
        lines += ["</PUnstructuredGrid>", "</VTKFile>"]
        with open(target, "w") as index:
            index.write("\n".join(lines) + "\n")

    def write(grid, variant, target):
        if variant.startswith("pvtu"):
            return write_pvtu(grid, target)
        writer = vtk_class(target, 1)
        if variant.startswith(("vtu", "vtp", "vts", "vtr", "vti")):
            if variant.endswith("ascii"):
                writer.SetDataModeToAscii()
            elif variant.endswith(("base64", "zlib")):
                writer.SetDataModeToBinary()
            else:
                writer.SetDataModeToAppended()
                writer.EncodeAppendedDataOff()
            if variant.endswith("zlib"):
                writer.SetCompressorTypeToZLib()
            else:
                writer.SetCompressorTypeToNone()
        elif variant.startswith("vtk-"):
            writer.SetFileVersion(51) if hasattr(writer, "SetFileVersion") else None
            if variant == "vtk-binary":
                writer.SetFileTypeToBinary()
            else:
                writer.SetFileTypeToASCII()
        writer.SetFileName(target)
        writer.SetInputData(grid)
        writer.Write()

    read.pieces = read_pieces
    return read, write


def gmsh_tool():
    import gmsh

    gmsh.initialize()
    gmsh.option.setNumber("General.Terminal", 0)

    def read(path):
        gmsh.clear()
        gmsh.open(path)
        return None, 0

    def write(_, variant, target):
        version, binary = {"msh41-binary": (4.1, 1), "msh41-ascii": (4.1, 0),
                           "msh22-binary": (2.2, 1), "msh22-ascii": (2.2, 0)}[variant]
        gmsh.option.setNumber("Mesh.MshFileVersion", version)
        gmsh.option.setNumber("Mesh.Binary", binary)
        gmsh.write(target)

    return read, write


# Inputs meshio reads too slowly to time its writer in reasonable time: meshio++ reads them
# and hands meshio an equal meshio.Mesh (only the write is timed).
READ_BY_US_FOR_WRITING = {"wkt"}


def mapdl_tool():
    """ansys-mapdl-reader (pymapdl-reader): Archive(path) and its VTK grid; save_as_archive."""
    from ansys.mapdl import reader as pymapdl_reader

    def read(path):
        grid = pymapdl_reader.Archive(path).grid
        return grid, int(grid.points.nbytes + grid.cell_connectivity.nbytes + grid.celltypes.nbytes)

    def write(grid, variant, target):
        pymapdl_reader.save_as_archive(target, grid)

    return read, write


def pyuff_tool():
    """pyuff (the universal-file reader on PyPI): every dataset of the file; its 2411/2412/2467 writer."""
    import pyuff

    def read(path):
        sets = pyuff.UFF(path).read_sets()
        sets = sets if isinstance(sets, list) else [sets]
        return sets, sum(int(np.asarray(v).nbytes) for d in sets for v in d.values() if isinstance(v, np.ndarray))

    def write(sets, variant, target):
        uff = pyuff.UFF(target)
        uff.write_sets(sets, mode="overwrite")

    return read, write


def lsdyna_mesh_reader_tool():
    """lsdyna-mesh-reader (pyvista's LS-DYNA deck reader): its node and element sections; it has no writer."""
    import lsdyna_mesh_reader

    def read(path):
        deck = lsdyna_mesh_reader.Deck(path)
        sections = deck.node_sections + deck.element_solid_sections + deck.element_shell_sections
        arrays = [getattr(s, name) for s in sections for name in ("coordinates", "node_ids", "nid", "eid", "pid")
                  if hasattr(s, name)]
        return deck, sum(int(np.asarray(a).nbytes) for a in arrays)

    return read, None  # no writer


def febio_python_tool():
    """febio-python's .feb reader: its nodes and elements; no writer here."""
    from febio_python.feb import Feb

    def read(path):
        feb = Feb(filepath=path)
        nodes, elements = feb.get_nodes(), feb.get_elements()
        arrays = [np.asarray(n.coordinates) for n in nodes] + [np.asarray(e.connectivity) for e in elements]
        return feb, sum(int(a.nbytes) for a in arrays)

    return read, None


def vtk_ensight_tool():
    """VTK's EnSight Gold reader (vtkGenericEnSightReader: every part, every variable); no writer here."""
    import vtk

    def read(path):
        reader = vtk.vtkGenericEnSightReader()
        reader.SetCaseFileName(path)
        reader.ReadAllVariablesOn()
        reader.Update()
        output = reader.GetOutput()
        blocks = [output.GetBlock(b) for b in range(output.GetNumberOfBlocks())]
        return output, sum(vtk_array_bytes(block) for block in blocks if block is not None)

    return read, None


def ccx2paraview_tool():
    """ccx2paraview (CalculiX's converter to VTK): the mesh and every step's results."""
    from ccx2paraview.common import FRD

    def read(path):
        with open(path) as handle:
            frd = FRD(handle)
            frd.parse_mesh()
            frd.count_increments()
            values = 0
            for step, inc in frd.steps_increments:
                for block in frd.parse_results(step, inc):
                    values += len(block.results) * max(len(block.components), 1) * 8
        return frd.ugrid, values

    def write(*_):
        raise SystemExit("ccx2paraview writes no .frd")

    return read, write


def read_for_writing(tool, variant, path, read):
    if tool == "vtk" and variant.startswith("pvtu"):
        return read.pieces(path)
    if tool != "meshio" or variant not in READ_BY_US_FOR_WRITING:
        return read(path)
    import meshio
    import meshioplusplus

    ours = meshioplusplus.read(path)
    mesh = meshio.Mesh(np.asarray(ours.points), [(block.type, np.asarray(block.data)) for block in ours.cells])
    return mesh, array_bytes(mesh)


def main():
    tool, operation, variant, path, repeat = sys.argv[1:6]
    repeat = int(repeat)
    if tool == "gmsh":
        read, write = gmsh_tool()
    elif tool in ("vtk", "vtk-explicit"):
        read, write = vtk_tool(explicit_cells=tool == "vtk-explicit")
    elif tool == "ansys-mapdl-reader":
        read, write = mapdl_tool()
    elif tool == "ccx2paraview":
        read, write = ccx2paraview_tool()
    elif tool == "pyuff":
        read, write = pyuff_tool()
    elif tool == "lsdyna-mesh-reader":
        read, write = lsdyna_mesh_reader_tool()
    elif tool == "vtk-ensight":
        read, write = vtk_ensight_tool()
    elif tool == "febio-python":
        read, write = febio_python_tool()
    elif tool.startswith("results-"):  # bench_results.py: a step of a d3plot / EnSight series
        from bench_results import results_tool

        read, write = results_tool(tool, variant)
    elif tool == "meshioplusplus-explicit":
        read, write = meshio_like("meshioplusplus")
        read = with_geometry_made(read)
    else:
        read, write = meshio_like({"meshioplusplus17": "meshioplusplus"}.get(tool, tool), tool == "meshioplusplus17")
    if operation == "write" and write is None:
        raise SystemExit(f"{tool} has no writer")
    reset_peak_rss()
    baseline = rss_now_kib()
    best = float("inf")
    returned = 0
    first_peak = None
    first_io = {}
    if operation == "read":
        for _ in range(repeat):
            io_before = io_counters() if first_peak is None else None
            started = time.perf_counter()
            mesh, returned = read(path)
            best = min(best, time.perf_counter() - started)
            if first_peak is None:
                first_peak = peak_rss_kib()  # one read's peak, before later reads add noise
                first_io = {k: v - io_before.get(k, 0) for k, v in io_counters().items()}  # the first read's
            del mesh
    else:
        mesh, returned = read_for_writing(tool, variant, path, read)
        folder = tempfile.mkdtemp(prefix="mpp-bench-")
        try:
            target = os.path.join(folder, "out." + extension_of(variant))
            for _ in range(repeat):
                started = time.perf_counter()
                write(mesh, variant, target)
                best = min(best, time.perf_counter() - started)
        finally:
            shutil.rmtree(folder, ignore_errors=True)  # some formats write several files (.node + .ele)
    print(json.dumps({
        "seconds": best,
        "array_bytes": returned,
        "peak_rss_over_baseline_bytes": ((first_peak or peak_rss_kib()) - baseline) * 1024,
        "file_bytes": input_bytes(path),
        **{"io_" + k: v for k, v in first_io.items()},
    }))


if __name__ == "__main__":
    main()
