"""Writes small seed files for the fuzz targets: a few tiny meshes (triangles with point and cell
data, tetrahedra with a boundary triangle, a hexahedron and a quad with vector data) through
every writer and its encodings, so each reader starts from valid files of every layout it knows.

Usage: python fuzz/make_seeds.py <seeds-dir>   → <seeds-dir>/<target>/generated-*<ext>
Needs an importable meshioplusplus (installed, or PYTHONPATH from scripts/dev_python.sh);
fuzz/make_seeds.sh calls it and adds the public sample files.
"""

import pathlib
import re
import sys
import tempfile

import numpy as np

import meshioplusplus as mio

# (target, format, file name ending, write options)
VARIANTS = [
    ("vtu", "vtu", ".vtu", {"binary": False}),
    ("vtu", "vtu", ".vtu", {"binary": True, "compression": None}),
    ("vtu", "vtu", ".vtu", {"binary": True, "compression": "zlib"}),
    ("vtk", "vtk", ".vtk", {"binary": False}),
    ("vtk", "vtk", ".vtk", {"binary": True}),
    ("vtk", "vtk", ".vtk", {"binary": False, "fmt_version": "4.2"}),
    ("gmsh", "gmsh", ".msh", {"binary": False, "fmt_version": "4.1"}),
    ("gmsh", "gmsh", ".msh", {"binary": True, "fmt_version": "4.1"}),
    ("gmsh", "gmsh", ".msh", {"binary": False, "fmt_version": "2.2"}),
    ("gmsh", "gmsh", ".msh", {"binary": True, "fmt_version": "2.2"}),
    ("medit", "medit", ".mesh", {}),
    ("medit_meshb", "medit", ".meshb", {}),
    ("abaqus", "abaqus", ".inp", {}),
    ("nastran", "nastran", ".bdf", {}),
    ("stl", "stl", ".stl", {"binary": False}),
    ("stl", "stl", ".stl", {"binary": True}),
    ("ply", "ply", ".ply", {"binary": False}),
    ("ply", "ply", ".ply", {"binary": True}),
    ("obj", "obj", ".obj", {}),
    ("off", "off", ".off", {}),
    ("su2", "su2", ".su2", {}),
    ("ugrid", "ugrid", ".ugrid", {}),
    ("ugrid_lb8", "ugrid", ".lb8.ugrid", {}),
    ("ugrid_r8", "ugrid", ".r8.ugrid", {}),
    ("tetgen", "tetgen", ".node", {}),
    ("avsucd", "avsucd", ".avs", {}),
    ("tecplot", "tecplot", ".dat", {}),
    ("dolfin", "dolfin", ".xml", {}),
    ("wkt", "wkt", ".wkt", {}),
    ("flac3d", "flac3d", ".f3grid", {"binary": False}),
    ("flac3d", "flac3d", ".f3grid", {"binary": True}),
    ("mdpa", "mdpa", ".mdpa", {}),
    ("permas", "permas", ".post", {}),
    ("lsdyna", "lsdyna", ".k", {}),
    ("ansys_cdb", "ansys_cdb", ".cdb", {}),
    ("unv", "unv", ".unv", {}),
    ("netgen", "netgen", ".vol", {}),
    ("ansys", "ansys", ".msh", {}),
    ("freefem", "freefem", ".msh", {}),
    ("code_aster", "code_aster", ".mail", {}),
    ("mphtxt", "mphtxt", ".mphtxt", {}),
    ("neuroglancer", "neuroglancer", ".neuroglancer", {}),
    ("vtp", "vtp", ".vtp", {"binary": False}),
    ("vtp", "vtp", ".vtp", {"binary": True, "compression": None}),
    ("vtp", "vtp", ".vtp", {"binary": True, "compression": "zlib"}),
    # The structured formats need structured meshes (none below): their seeds are public files
    # and the hand-written ones of STRUCTURED_SEEDS.
    ("xdmf", "xdmf", ".xdmf", {"data_format": "XML"}),
    ("hmf", "hmf", ".hmf", {"compression": None}),
    ("hmf", "hmf", ".hmf", {}),
    ("h5m", "h5m", ".h5m", {"compression": None}),
    ("vtkhdf", "vtkhdf", ".vtkhdf", {}),
    ("med", "med", ".med", {}),
    ("cgns", "cgns", ".cgns", {"backend": "hdf5"}),
    ("cgns", "cgns", ".cgns", {"backend": "adf"}),
    ("exodus", "exodus", ".exo", {"netcdf_format": "NETCDF3_CLASSIC"}),
    ("exodus", "exodus", ".exo", {"netcdf_format": "NETCDF3_64BIT_OFFSET"}),
    ("exodus", "exodus", ".exo", {}),
]

# Small structured VTK XML files, written by hand (ascii and base64 binary; the readers accept
# every layout the VTU reader knows).
STRUCTURED_SEEDS = {
    ("vti", "image-ascii.vti"): b"""<?xml version="1.0"?>
<VTKFile type="ImageData" version="1.0" byte_order="LittleEndian" header_type="UInt64">
  <ImageData WholeExtent="0 2 0 1 0 1" Origin="0 0 0" Spacing="1 0.5 2" Direction="1 0 0 0 1 0 0 0 1">
    <Piece Extent="0 2 0 1 0 1">
      <PointData Scalars="t"><DataArray type="Float64" Name="t" format="ascii">0 1 2 3 4 5 6 7 8 9 10 11</DataArray></PointData>
      <CellData><DataArray type="Int32" Name="m" NumberOfComponents="1" format="ascii">1 2</DataArray></CellData>
    </Piece>
  </ImageData>
</VTKFile>
""",
    ("vtr", "rectilinear-ascii.vtr"): b"""<?xml version="1.0"?>
<VTKFile type="RectilinearGrid" version="1.0" byte_order="LittleEndian" header_type="UInt32">
  <RectilinearGrid WholeExtent="0 2 0 1 0 0">
    <Piece Extent="0 2 0 1 0 0">
      <PointData><DataArray type="Float32" Name="v" NumberOfComponents="3" format="ascii">0 0 0 1 1 1 2 2 2 3 3 3 4 4 4 5 5 5</DataArray></PointData>
      <CellData></CellData>
      <Coordinates>
        <DataArray type="Float64" format="ascii">0 0.5 2</DataArray>
        <DataArray type="Float64" format="ascii">0 1</DataArray>
        <DataArray type="Float64" format="ascii">0</DataArray>
      </Coordinates>
    </Piece>
  </RectilinearGrid>
</VTKFile>
""",
    ("vts", "structured-ascii.vts"): b"""<?xml version="1.0"?>
<VTKFile type="StructuredGrid" version="0.1" byte_order="BigEndian">
  <StructuredGrid WholeExtent="0 1 0 1 0 0">
    <Piece Extent="0 1 0 1 0 0">
      <PointData></PointData>
      <CellData><DataArray type="Int64" Name="id" format="ascii">7</DataArray></CellData>
      <Points><DataArray type="Float64" NumberOfComponents="3" format="ascii">0 0 0 1 0 0 0 1 0 1 1 0.5</DataArray></Points>
    </Piece>
  </StructuredGrid>
</VTKFile>
""",
}

TETGEN_SPLIT = b"\n%%ele%%\n"  # tests/support/fuzz_targets.hpp splits the input here

# The collection targets read their input as an index in a folder of fixed piece files
# (tests/support/fuzz_targets.hpp, prepare_fuzz_directory): the writers' index files are kept
# with the piece names they wrote replaced by those files', in turn.
COLLECTION_VARIANTS = [
    ("pvtu", "pvtu", ".pvtu", {"pieces": "1"}, ["piece.vtu", "sub/piece.vtu", "../outside.vtu"]),
    ("pvtu", "pvtu", ".pvtu", {"pieces": "3", "binary": True}, ["piece.vtu", "sub/piece.vtu", "link.vtu"]),
    ("pvtp", "pvtp", ".pvtp", {"pieces": "2"}, ["piece.vtp", "piece.vtp"]),
    ("vtm", "vtm", ".vtm", {}, ["piece.vtu", "piece.vtp", "piece.vts", "piece.vti", "part.pvtu", "steps.pvd"]),
    ("pvd", "pvd", ".pvd", {"time": "0.25"}, ["piece.vtu", "piece.vtp", "all.vtm", "part.pvtu"]),
]
COLLECTION_SEEDS = {
    ("vtm", "blocks.vtm"): b"""<?xml version="1.0"?>
<VTKFile type="vtkMultiBlockDataSet" version="1.0" byte_order="LittleEndian">
  <vtkMultiBlockDataSet>
    <Block index="0" name="a">
      <DataSet index="0" name="u" file="piece.vtu"/>
      <Block index="1"><DataSet index="0" file="sub/piece.vtu"/><DataSet index="1" file=""/></Block>
    </Block>
    <DataSet index="1" name="p" file="piece.vtp"/>
    <DataSet index="2" name="s" file="piece.vts"/>
    <DataSet index="3" name="i" file="piece.vti"/>
    <DataSet index="4" name="o" file="other.vtu"/>
    <DataSet index="5" name="series" file="steps.pvd"/>
  </vtkMultiBlockDataSet>
</VTKFile>
""",
    ("vtm", "partitioned.vtm"): b"""<?xml version="1.0"?>
<VTKFile type="vtkPartitionedDataSetCollection" version="1.0">
  <vtkPartitionedDataSetCollection>
    <Partitions index="0" name="x"><DataSet index="0" file="part.pvtu"/><DataSet index="1" file="back.vtm"/></Partitions>
  </vtkPartitionedDataSetCollection>
</VTKFile>
""",
    ("pvd", "series.pvd"): b"""<?xml version="1.0"?>
<VTKFile type="Collection" version="0.1" byte_order="LittleEndian">
  <Collection>
    <DataSet timestep="-1.5" group="g" part="0" file="piece.vtu"/>
    <DataSet timestep="-1.5" group="g" part="1" file="other.vtu"/>
    <DataSet timestep="2" group="g" part="0" file="sub/piece.vtu"/>
    <DataSet timestep="3" part="0" file="cross.vtm"/>
  </Collection>
</VTKFile>
""",
    ("pvtp", "pieces.pvtp"): b"""<?xml version="1.0"?>
<VTKFile type="PPolyData" version="0.1" byte_order="LittleEndian">
  <PPolyData GhostLevel="0">
    <PPointData Scalars="t"><PDataArray type="Float64" Name="t"/></PPointData>
    <PCellData><PDataArray type="Int32" Name="m"/></PCellData>
    <PPoints><PDataArray type="Float32" NumberOfComponents="3"/></PPoints>
    <Piece Source="piece.vtp"/>
    <Piece Source="./piece.vtp"/>
  </PPolyData>
</VTKFile>
""",
}


def meshes():
    triangles = mio.Mesh(
        np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0.5]], dtype=float),
        [("triangle", np.array([[0, 1, 2], [0, 2, 3]]))],
        point_data={"temperature": np.array([1.5, -2.25, 3e10, 0.1])},
        cell_data={"material": [np.array([1, 7], dtype=np.int32)]},
    )
    tetrahedra = mio.Mesh(
        np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 1]], dtype=float),
        [("tetra", np.array([[0, 1, 2, 3], [1, 2, 3, 4]])), ("triangle", np.array([[0, 1, 2]]))],
    )
    cube = np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0], [0, 0, 1], [1, 0, 1], [1, 1, 1], [0, 1, 1]], dtype=float)
    hexahedra = mio.Mesh(
        cube,
        [("hexahedron", np.arange(8).reshape(1, 8)), ("quad", np.array([[0, 1, 2, 3]]))],
        point_data={"velocity": np.full((8, 3), 0.25)},
    )
    return [triangles, tetrahedra, hexahedra]


def main(root):
    root = pathlib.Path(root)
    written = 0
    with tempfile.TemporaryDirectory() as scratch:
        scratch = pathlib.Path(scratch)
        for number, (target, file_format, ending, options) in enumerate(VARIANTS):
            (root / target).mkdir(parents=True, exist_ok=True)
            for index, mesh in enumerate(meshes()):
                stem = f"generated-{number}-{index}"
                path = scratch / (stem + ending)
                try:
                    mio.write(str(path), mesh, file_format=file_format, **options)
                except (mio.WriteError, ValueError, TypeError):
                    continue  # a layout this writer cannot store (volume cells in a surface format …)
                if file_format == "tetgen":
                    data = (scratch / (stem + ".node")).read_bytes() + TETGEN_SPLIT + (scratch / (stem + ".ele")).read_bytes()
                else:
                    data = path.read_bytes()
                (root / target / (stem + ending)).write_bytes(data)
                written += 1
        for number, (target, file_format, ending, options, pieces) in enumerate(COLLECTION_VARIANTS):
            (root / target).mkdir(parents=True, exist_ok=True)
            for index, mesh in enumerate(meshes()):
                path = scratch / f"collection-{number}-{index}" / ("index" + ending)
                path.parent.mkdir()
                try:
                    mio.write(str(path), mesh, file_format=file_format, **options)
                except (mio.WriteError, ValueError, TypeError):
                    continue
                names = iter(pieces * 8)
                text = re.sub(rb'(Source|file)="[^"]*"', lambda m: m.group(1) + b'="' + next(names).encode() + b'"', path.read_bytes())
                (root / target / f"generated-{number}-{index}{ending}").write_bytes(text)
                written += 1
    for (target, name), data in COLLECTION_SEEDS.items():
        (root / target).mkdir(parents=True, exist_ok=True)
        (root / target / ("generated-" + name)).write_bytes(data)
        written += 1
    for (target, name), data in STRUCTURED_SEEDS.items():
        (root / target).mkdir(parents=True, exist_ok=True)
        (root / target / ("generated-" + name)).write_bytes(data)
        written += 1
    print(f"make_seeds.py: {written} generated seed files under {root}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: make_seeds.py <seeds-dir>")
    main(sys.argv[1])
