"""What formats add on the Python side, one module per format (``_format_extras/<name>.py``).
Each module registers its additions in ``_capabilities`` when imported (time-series classes,
partitioned readers, writers of several meshes, option translation, extra namespace names);
importing this package imports them all, once, from the package's top. Format modules import
only the floors below them (``_core``, ``_conversion``, ``_mesh``, ``_options``,
``_capabilities``), never the read/write dispatch."""

from . import abaqus_fil, ansys_rst, binout, d3plot, ensight, exodus, frd, gltf, gmsh, iges, mdpa, med, nastran_h5, op2, openfoam, pvd, pvtp, pvtu, step, tecplot_binary, unv, usd, vtkhdf, vtm, xdmf, xplt, xyz  # noqa: F401  (they register)
