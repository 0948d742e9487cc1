"""One benchmark measurement in a clean process; prints a JSON line.

usage: _worker.py TOOL OPERATION VARIANT PATH REPEAT
  TOOL      meshioplusplus | meshio | vtk | meshioplusplus17
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
})
# File extension of each variant (or of its stem, the part before the first '-').
EXTENSIONS = {"msh41": "msh", "msh22": "msh", "medit": "mesh", "abaqus": "inp", "nastran": "bdf",
              "medit-binary": "meshb", "ugrid-b8": "b8.ugrid", "tetgen": "node", "avsucd": "avs",
              "tecplot": "dat", "dolfin": "xml", "permas": "dato", "netgen": "vol", "flac3d": "f3grid", "ansys": "msh"}
# Formats without an extension (meshio registers neuroglancer with none): read by name.
READ_FORMATS = {".neuroglancer": "neuroglancer"}


def extension_of(variant):
    return EXTENSIONS.get(variant) or EXTENSIONS.get(variant.split("-")[0], variant.split("-")[0])


def input_bytes(path):
    """Bytes a read parses: TetGen's .node comes with its .ele."""
    size = os.path.getsize(path)
    if path.endswith(".node") and os.path.exists(path[: -len(".node")] + ".ele"):
        size += os.path.getsize(path[: -len(".node")] + ".ele")
    return size


def array_bytes(mesh):
    total = mesh.points.nbytes
    for block in mesh.cells:
        data = block.data if hasattr(block, "data") else block[1]
        total += data.nbytes if hasattr(data, "nbytes") else sum(np.asarray(c).nbytes for c in data)
    for values in mesh.point_data.values():
        total += values.nbytes
    for per_block in mesh.cell_data.values():
        total += sum(a.nbytes for a in per_block)
    return total


def meshio_like(module_name):
    module = __import__(module_name)

    def read(path):
        file_format = next((name for suffix, name in READ_FORMATS.items() if path.endswith(suffix)), None)
        mesh = module.read(path, file_format) if file_format else module.read(path)
        return mesh, array_bytes(mesh)

    def write(mesh, variant, target):
        options = (OUR_WRITE_OPTIONS if module_name == "meshioplusplus" else MESHIO_WRITE_OPTIONS).get(variant)
        if options is None:
            raise SystemExit(f"{module_name} cannot write {variant}")
        file_format, kwargs = options
        module.write(target, mesh, file_format=file_format, **kwargs)

    return read, write


def vtk_tool():
    import vtk
    from vtk.util.numpy_support import vtk_to_numpy

    def reader_for(path):
        if path.endswith(".vtu"):
            return vtk.vtkXMLUnstructuredGridReader()
        return vtk.vtkUnstructuredGridReader()

    def read(path):
        reader = reader_for(path)
        reader.SetFileName(path)
        reader.Update()
        grid = reader.GetOutput()
        total = vtk_to_numpy(grid.GetPoints().GetData()).nbytes
        cells = grid.GetCells()
        total += vtk_to_numpy(cells.GetConnectivityArray()).nbytes + vtk_to_numpy(cells.GetOffsetsArray()).nbytes
        return grid, total

    def write(grid, variant, target):
        if variant.startswith("vtu"):
            writer = vtk.vtkXMLUnstructuredGridWriter()
            if variant == "vtu-ascii":
                writer.SetDataModeToAscii()
            elif variant in ("vtu-base64", "vtu-zlib"):
                writer.SetDataModeToBinary()
            else:
                writer.SetDataModeToAppended()
                writer.EncodeAppendedDataOff()
            if variant.endswith("zlib"):
                writer.SetCompressorTypeToZLib()
            else:
                writer.SetCompressorTypeToNone()
        else:
            writer = vtk.vtkUnstructuredGridWriter()
            writer.SetFileVersion(51) if hasattr(writer, "SetFileVersion") else None
            if variant == "vtk-binary":
                writer.SetFileTypeToBinary()
            else:
                writer.SetFileTypeToASCII()
        writer.SetFileName(target)
        writer.SetInputData(grid)
        writer.Write()

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


def read_for_writing(tool, variant, path, read):
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
    elif tool == "vtk":
        read, write = vtk_tool()
    else:
        read, write = meshio_like({"meshioplusplus17": "meshioplusplus"}.get(tool, tool))
    reset_peak_rss()
    baseline = rss_now_kib()
    best = float("inf")
    returned = 0
    first_peak = None
    if operation == "read":
        for _ in range(repeat):
            started = time.perf_counter()
            mesh, returned = read(path)
            best = min(best, time.perf_counter() - started)
            if first_peak is None:
                first_peak = peak_rss_kib()  # one read's peak, before later reads add noise
            del mesh
    else:
        mesh, returned = read_for_writing(tool, variant, path, read)
        folder = tempfile.mkdtemp(prefix="mpp-bench-")
        target = os.path.join(folder, "out." + extension_of(variant))
        for _ in range(repeat):
            started = time.perf_counter()
            write(mesh, variant, target)
            best = min(best, time.perf_counter() - started)
        shutil.rmtree(folder)  # some formats write several files (TetGen's .node + .ele)
    print(json.dumps({
        "seconds": best,
        "array_bytes": returned,
        "peak_rss_over_baseline_bytes": ((first_peak or peak_rss_kib()) - baseline) * 1024,
        "file_bytes": input_bytes(path),
    }))


if __name__ == "__main__":
    main()
