"""Command line: meshio's subcommands (``convert``, ``info``, ``compress``, ``decompress``,
``ascii``, ``binary``) with meshio's flags, plus our own (``--binary`` on convert, ``--drop``).

``meshioplusplus._cli.main(argv)`` is meshio's ``meshio._cli.main``: it returns the exit status
instead of raising on mesh errors, so scripts and tests can call it in-process.
"""

import argparse
import json
import os
import sys
import threading
import time

import numpy as np

from . import _core, _isolation
from ._exceptions import MeshioError
from ._helpers import _filetypes_from_path, _resolve_format, _write_format_for_path, _writer_map, read, read_metadata, reader_map, write
from ._operations import check, clean, crop, drop_cell_types, extract_region, extract_surface, remove_cells
from ._parallel import partition, write_pieces
from ._read_less import metadata_of_mesh
from ._regions import RegionKind
from ._version import __version__


def _format_help():
    rows = []
    for row in _core.formats():
        modes = "r" * row["can_read"] + "w" * row["can_write"]
        rows.append(f"  {row['name']:<12} {modes:<3} {' '.join(row['extensions']):<20} {row['description']}")
    return "formats:\n" + "\n".join(rows)


def _write_options(format_name):
    for row in _core.formats():
        if row["name"] == format_name:
            return {name for name, _, _ in row["write_options"]}
    return set()


class CliError(Exception):
    """A mistake on the command line, reported in the CLI's own words (flags, not keywords)."""


class _Progress:
    """A spinner with the elapsed time on stderr while a phase runs — only when a person is
    watching a terminal; silent when stderr is piped or redirected."""

    def __init__(self, enabled):
        self.enabled = enabled
        self._stop = None
        self._thread = None
        self.started = None

    def begin(self, text):
        self.started = time.perf_counter()
        if not self.enabled:
            return
        self._stop = threading.Event()

        def spin():
            frames = "|/-\\"
            tick = 0
            while not self._stop.wait(0.1):
                elapsed = time.perf_counter() - self.started
                sys.stderr.write(f"\r{text} {frames[tick % 4]} {elapsed:.1f} s")
                sys.stderr.flush()
                tick += 1

        sys.stderr.write(f"{text} …")
        sys.stderr.flush()
        self._thread = threading.Thread(target=spin, daemon=True)
        self._thread.start()
        self._text = text

    def end(self):
        elapsed = time.perf_counter() - self.started
        if self.enabled:
            self._stop.set()
            self._thread.join()
            sys.stderr.write(f"\r{self._text} done ({elapsed:.2f} s)\n")
            sys.stderr.flush()
        return elapsed


def _check_input(path):
    if os.path.isdir(path) and not _core.format_for_path(path):  # an OpenFOAM case directory is a mesh
        raise CliError(f"{path} is a directory; give a mesh file (or an OpenFOAM case directory)")
    if not os.path.exists(path):
        raise CliError(f"{path}: no such file")


def _input_format(args):
    """The format name for the input: -i/--input-format, else deduced from the file name."""
    if args.input_format:
        return args.input_format
    try:
        return _write_format_for_path(args.infile)
    except Exception:
        raise CliError(f"cannot tell the format of {args.infile} from its name; pass -i/--input-format") from None


def _isolates(args):
    """--isolate / --no-isolate, else MESHIOPLUSPLUS_ISOLATE, else: isolate the formats parsed
    by HDF5, netCDF or CGNS (docs/isolation.md), whose crashes on hostile files are not ours to fix."""
    if args.isolate is not None:
        return args.isolate
    if getattr(args, "timeout", None) is not None or _isolation.environment_default():
        return True
    if args.input_format:
        return _core_name(args.input_format) in _isolation.LIBRARY_BACKED_FORMATS
    try:
        candidates = _filetypes_from_path(args.infile)
    except MeshioError:
        return False
    return any(name in _isolation.LIBRARY_BACKED_FORMATS for name in candidates)


def _read_input(args):
    return read(args.infile, file_format=args.input_format, isolate=_isolates(args),
                timeout=getattr(args, "timeout", None))


def _output_format(args):
    if args.output_format:
        return args.output_format
    try:
        return _write_format_for_path(args.outfile)
    except Exception:
        raise CliError(f"cannot tell the format of {args.outfile} from its name; pass -o/--output-format") from None


def _core_name(format_name):
    return _resolve_format(format_name)[0]


def _cell_count(mesh):
    return sum(len(block) for block in mesh.cells)


def _select(mesh, args):
    """convert's --drop, --crop and --crop-region, in that order: each keeps some cells (the
    core's select_cells: data and regions follow, points no kept cell uses go)."""
    if args.drop:
        wanted = {name.strip() for name in args.drop.split(",") if name.strip()}
        if not wanted:
            raise CliError("--drop takes comma-separated cell types (e.g. vertex,line)")
        dropped = sorted({block.type for block in mesh.cells if block.type in wanted})
        if dropped:
            mesh = drop_cell_types(mesh, wanted)
            print(f"dropped cell blocks of type {', '.join(dropped)}", file=sys.stderr)
    if args.crop is not None:
        low, high = np.array(args.crop[:3]), np.array(args.crop[3:])
        if not (np.isfinite(args.crop).all() and (low <= high).all()):
            raise CliError("--crop takes XMIN YMIN ZMIN XMAX YMAX ZMAX, finite, each min <= its max")
        width = mesh.points.shape[1] if mesh.points.ndim == 2 else 3
        if width > 3:
            raise CliError(f"--crop: points of {width} coordinates")
        before = _cell_count(mesh)
        mesh = crop(mesh, low[:width], high[:width])
        print(f"cropped to the box: kept {_cell_count(mesh)} of {before} cells", file=sys.stderr)
    if args.crop_region is not None:
        names = [r.name for r in mesh.regions if r.kind != RegionKind.POINT]
        if args.crop_region not in names:
            raise CliError(f"--crop-region: no cell region {args.crop_region!r} (the mesh has "
                           + (", ".join(repr(n) for n in dict.fromkeys(names)) or "none") + ")")
        before = _cell_count(mesh)
        mesh = extract_region(mesh, args.crop_region)
        print(f"kept region {args.crop_region!r}: {_cell_count(mesh)} of {before} cells", file=sys.stderr)
    return mesh


def _convert(args):
    _check_input(args.infile)
    out_format = _output_format(args)
    if out_format not in _writer_map:
        raise CliError(f"unknown output format {out_format!r} (-o/--output-format); see --help")
    progress = _Progress(sys.stderr.isatty())
    progress.begin(f"reading {args.infile}")
    mesh = _read_input(args)
    progress.end()
    if args.sets_to_int_data:
        mesh.point_sets_to_data()
        mesh.cell_sets_to_data()
    if args.int_data_to_sets:
        for key in list(mesh.point_data):
            mesh.point_data_to_sets(key)
        for key in list(mesh.cell_data):
            mesh.cell_data_to_sets(key)
    mesh = _select(mesh, args)
    _clean_up(mesh, args)
    if args.extract_surface:
        mesh = extract_surface(mesh)
        print(f"extracted the surface: {sum(len(block) for block in mesh.cells)} facets", file=sys.stderr)
    options = {}
    supports = _write_options(_core_name(out_format))
    # Text-only formats have no binary switch: --ascii asks for what they write anyway.
    if args.ascii and "binary" in supports:
        options["binary"] = False
    elif args.binary:
        if "binary" not in supports:
            raise CliError(f"{out_format} has no binary variant (--binary)")
        options["binary"] = True
    if args.float_format is not None:
        options["float_fmt"] = args.float_format
    progress.begin(f"writing {args.outfile}")
    write(args.outfile, mesh, file_format=out_format, **options)
    progress.end()
    return 0


# The clean-up flags of convert, in the order they run (docs/clean-up.md), and what each did.
_CLEAN_UP = (
    ("remove_lower_dimensional_cells", "removed {} lower-dimensional cells"),
    ("merge_points", "merged {} points"),
    ("remove_orphaned_nodes", "removed {} orphaned points"),
    ("prune_z_0", "dropped the z column (z = 0 everywhere)"),
)


def _clean_up(mesh, args):
    operations = []
    for name, _ in _CLEAN_UP:
        value = getattr(args, name)
        if name == "merge_points" and value is not None:
            if value < 0:
                raise CliError("--merge-points takes a tolerance >= 0")
            operations.append((name, [value]))
        elif value is True:
            operations.append((name, []))
    if not operations:
        return
    messages = dict(_CLEAN_UP)
    for (name, _), count in zip(operations, clean(mesh, operations)):
        if count:
            print(messages[name].format(count), file=sys.stderr)


def _check(args):
    _check_input(args.infile)
    mesh = _read_input(args)
    found = check(mesh)
    print(args.infile)
    rows = (("inverted cells", found.inverted), ("degenerate cells", found.degenerate),
            ("duplicate cells", found.duplicate), ("unused points", found.unused_points),
            ("cells at non-manifold facets", found.non_manifold_cells))
    for label, indices in rows:
        shown = ", ".join(str(int(i)) for i in indices[:10]) + (" …" if len(indices) > 10 else "")
        print(f"  {label}: {len(indices)}" + (f" ({shown})" if len(indices) else ""))
    print(f"  non-manifold facets: {found.non_manifold_facets}")
    print("  ok" if found.ok else "  problems found (cells are block-major indices)")
    return 0 if found.ok else 1


def _clean(args):
    """clean IN [OUT]: merge equal points, drop degenerate and duplicate cells, remove orphaned
    points (each can be left out), written to OUT or back to IN (atomically: a failed write
    leaves IN as it was). docs/clean-up.md."""
    _check_input(args.infile)
    outfile = args.outfile or args.infile
    if args.output_format:
        out_format = args.output_format
    elif args.outfile:
        out_format = _output_format(args)
    else:
        out_format = _input_format(args)
    if out_format not in _writer_map:
        raise CliError(f"cannot write {out_format} files; give OUT in a writable format (or -o/--output-format)")
    if args.merge_points is not None and not args.merge_points >= 0:
        raise CliError("--merge-points takes a tolerance >= 0")
    mesh = _read_input(args)
    points, cells = len(mesh.points), _cell_count(mesh)
    done = []
    operations = []
    if args.remove_lower_dimensional_cells:
        operations.append(("remove_lower_dimensional_cells", []))
    if not args.no_merge_points:
        operations.append(("merge_points", [args.merge_points or 0.0]))
    for (name, _), count in zip(operations, clean(mesh, operations) if operations else []):
        done.append(f"{count} {'points merged' if name == 'merge_points' else 'lower-dimensional cells removed'}")
    if not (args.keep_degenerate and args.keep_duplicate_cells):
        found = check(mesh)
        bad = [] if args.keep_degenerate else list(found.degenerate)
        if not args.keep_degenerate:
            done.append(f"{len(found.degenerate)} degenerate cells removed")
        if not args.keep_duplicate_cells:
            done.append(f"{len(found.duplicate)} duplicate cells removed")
            bad += list(found.duplicate)
        if bad:  # the points only those cells used go with them
            mesh = remove_cells(mesh, np.unique(np.asarray(bad, dtype=np.int64)))
    if not args.keep_orphans:
        before = len(mesh.points)
        clean(mesh, [("remove_orphaned_nodes", [])])
        done.append(f"{before - len(mesh.points)} orphaned points removed")
    if args.prune_z_0 and clean(mesh, [("prune_z_0", [])])[0]:
        done.append("z column dropped")
    write(outfile, mesh, file_format=out_format)
    print(f"{args.infile}: points {points} -> {len(mesh.points)}, cells {cells} -> {_cell_count(mesh)} "
          f"({'; '.join(done) or 'nothing to do'}); wrote {outfile}", file=sys.stderr)
    return 0


def _describe_array(array):
    return f"{array.dtype}{list(array.shape)}"


def info_text(mesh, path, seconds):
    lines = [f"{path}", f"  read in {seconds * 1e3:.1f} ms"]
    lines.append(f"  points: {len(mesh.points)} (dim {mesh.points.shape[1] if mesh.points.ndim == 2 else '?'}, {mesh.points.dtype})")
    if len(mesh.points):
        low, high = mesh.points.min(axis=0), mesh.points.max(axis=0)
        lines.append(f"  bounding box: min {np.array2string(low, precision=6)} max {np.array2string(high, precision=6)}")
    lines.append(f"  cell blocks: {len(mesh.cells)}")
    for block in mesh.cells:
        lines.append(f"    {block.type:<16} {len(block)}")
    for title, items in (("point data", mesh.point_data.items()), ("field data", mesh.field_data.items())):
        if items:
            lines.append(f"  {title}:")
            for name, array in items:
                lines.append(f"    {name}: {_describe_array(np.asarray(array))}")
    if mesh.cell_data:
        lines.append("  cell data:")
        for name, per_block in mesh.cell_data.items():
            lines.append(f"    {name}: " + ", ".join(_describe_array(np.asarray(a)) for a in per_block))
    if mesh.regions:
        lines.append("  regions:")
        for region in mesh.regions:
            lines.append(
                f"    {region.name!r}: {region.kind.name.lower()}, dim {region.dim}, tag {region.tag}, {len(region.entries)} entries"
            )
    consistency = _consistency(mesh)
    if consistency:
        lines.append(f"  warning: {consistency}")
    return "\n".join(lines)


def _consistency(mesh):
    """meshio's info checks: cells naming missing points, points in no cell."""
    used = np.zeros(len(mesh.points), dtype=bool)
    for block in mesh.cells:
        arrays = [block.data] if isinstance(block.data, np.ndarray) else [
            np.asarray(face) for cell in block.data for face in (cell if isinstance(cell, list) else [cell])]
        for array in arrays:
            if array.size and (array.max() >= len(mesh.points) or array.min() < 0):
                return "inconsistent mesh: cells refer to nonexistent points"
            used[array.reshape(-1)] = True
    if len(mesh.points) and not used.all():
        return "some points are not part of any cell"
    return ""


def features_text():
    """Which optional libraries (and so which formats and compressors) this build has."""
    features = _core.features()
    served = {"zlib": "VTK XML zlib, gzip'd Netgen/PERMAS", "lzma": "VTK XML lzma", "lz4": "VTK XML lz4",
              "libdeflate": "faster gzip'd HDF5 datasets (compress and inflate)",
              "isa-l": "faster inflate of HDF5 gzip chunks and VTK XML zlib blocks",
              "hdf5": "XDMF (HDF5 heavy data), VTKHDF, MED, HMF, H5M", "netcdf": "Exodus II", "cgns": "CGNS"}
    lines = ["optional libraries in this build:"]
    for name, present in features.items():
        lines.append(f"  {name:<10} {'yes' if present else 'no ':<4} {served.get(name, '')}")
    return "\n".join(lines)


def _info(args):
    if args.formats:
        print(_format_help())
        print(features_text())
        return 0
    if args.infile is None:
        raise CliError("info needs a mesh file (or --formats)")
    _check_input(args.infile)
    started = time.perf_counter()
    if args.fast:
        summary = read_metadata(args.infile, file_format=args.input_format, isolate=_isolates(args),
                                timeout=getattr(args, "timeout", None))
    else:
        mesh = _read_input(args)
        summary = metadata_of_mesh(mesh, _core_name(args.input_format or _filetypes_from_path(args.infile)[0])) \
            if args.json else None
    seconds = time.perf_counter() - started
    if args.json:
        print(json.dumps(summary, indent=2))
    elif args.fast:
        print(metadata_text(summary, args.infile, seconds))
    else:
        print(info_text(mesh, args.infile, seconds))
    return 0


def metadata_text(summary, path, seconds):
    """``info --fast``: read_metadata's summary, as ``info_text`` lays out a full read."""
    source = "header" if summary["header_only"] else "full read"
    lines = [f"{path}", f"  {summary['format']} ({summary['variant'] or 'summary'}), from the {source} in "
                        f"{seconds * 1e3:.1f} ms",
             f"  points: {summary['num_points']} (dim {summary['point_dim']})"]
    if summary["bounds"] is not None:
        low, high = summary["bounds"][:3], summary["bounds"][3:]
        lines.append(f"  bounding box: min {low} max {high}")
    lines.append(f"  cells: {summary['num_cells']}")
    for block in summary["cell_blocks"]:
        lines.append(f"    {block['type']:<16} {block['count']}")
    for association in ("point", "cell", "field"):
        arrays = [a for a in summary["arrays"] if a["association"] == association]
        if arrays:
            lines.append(f"  {association} data:")
            lines.extend(f"    {a['name']}: {a['dtype']} {tuple(a['shape'])}" for a in arrays)
    if summary["regions"]:
        lines.append("  regions:")
        for region in summary["regions"]:
            count = "" if region["count"] is None else f", {region['count']} entries"
            lines.append(f"    {region['name']!r}: {region['kind']}, dim {region['dim']}, tag {region['tag']}{count}")
    if summary["times"]:
        times = summary["times"]
        lines.append(f"  steps: {len(times)} (t = {times[0]} .. {times[-1]})")
    return "\n".join(lines)


def _rewrite(args, options_for, verb):
    """Reads the file and writes it back in place with other options (compress, ascii …)."""
    _check_input(args.infile)
    format_name = _input_format(args)
    options = options_for(_core_name(format_name), _write_options(_core_name(format_name)), args)
    if options is None:
        raise CliError(f"don't know how to {verb} {args.infile} ({format_name})")
    print(f"File size before: {os.stat(args.infile).st_size / 1024 ** 2:.2f} MB")
    mesh = _read_input(args)
    write(args.infile, mesh, file_format=format_name, **options)
    print(f"File size after: {os.stat(args.infile).st_size / 1024 ** 2:.2f} MB")
    return 0


#: Formats whose heavy data sits in HDF5 datasets: compressed with HDF5's gzip filter.
_HDF5_COMPRESSIBLE = {"xdmf", "h5m", "cgns", "hmf", "vtkhdf", "med"}


def _compress_options(name, supports, args):
    if name in _HDF5_COMPRESSIBLE and "compression" in supports:
        options = {"compression": "gzip"}
        if "compression_opts" in supports:
            options["compression_opts"] = 9 if args.max else 4
        if name == "xdmf" and "data_format" in supports:
            options["data_format"] = "HDF"
        return options
    if "compression" in supports:
        return {"binary": True, "compression": "lzma" if args.max else "zlib"}
    if "binary" in supports:
        return {"binary": True}
    return None


def _decompress_options(name, supports, args):
    if "compression" in supports:
        return {"compression": None}
    return None


def _ascii_options(name, supports, args):
    if name == "xdmf" and "data_format" in supports:
        return {"data_format": "XML"}
    if "binary" in supports:
        return {"binary": False}
    return None


def _binary_options(name, supports, args):
    if name == "xdmf" and "data_format" in supports:
        return {"data_format": "HDF"}
    if "binary" in supports:
        options = {"binary": True}
        if name == "vtu":
            options["compression"] = None
        return options
    return None


def _partition(args):
    _check_input(args.infile)
    if not args.outfile.lower().endswith(".pvtu"):
        raise CliError(f"{args.outfile}: partitioned output must be .pvtu")
    progress = _Progress(sys.stderr.isatty())
    progress.begin(f"reading {args.infile}")
    mesh = _read_input(args)
    progress.end()
    progress.begin(f"partitioning into {args.parts} ({args.method})")
    pieces = partition(mesh, args.parts, method=args.method)
    progress.end()
    progress.begin(f"writing {args.outfile}")
    write_pieces(args.outfile, pieces)
    progress.end()
    return 0


def _version_text():
    python = f"{sys.version_info.major}.{sys.version_info.minor}.{sys.version_info.micro}"
    return f"meshioplusplus {__version__} [Python {python}] (meshio 5.3.5 drop-in)"


def build_parser():
    parser = argparse.ArgumentParser(
        prog="meshioplusplus",
        description="Convert and inspect mesh files.",
        epilog=_format_help(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", "-v", action="version", version=_version_text())
    commands = parser.add_subparsers(dest="command", required=True, title="subcommands")

    def add_isolation(sub):
        isolation = sub.add_mutually_exclusive_group()
        isolation.add_argument("--isolate", dest="isolate", action="store_true", default=None,
                               help="read in a worker process, so a hostile file cannot crash this one "
                                    "(default for HDF5/netCDF/CGNS formats; docs/isolation.md)")
        isolation.add_argument("--no-isolate", dest="isolate", action="store_false",
                               help="read in this process, also HDF5/netCDF/CGNS formats")
        sub.add_argument("--timeout", metavar="SECONDS", type=float,
                         help="give up on a read after SECONDS (implies --isolate)")

    def add_input(sub):
        sub.add_argument("infile", help="mesh file to read")
        sub.add_argument("--input-format", "-i", metavar="FORMAT", choices=sorted(reader_map),
                         help="input file format (default: from the file name)")
        add_isolation(sub)

    convert = commands.add_parser("convert", aliases=["c"], help="convert a mesh file to another format")
    add_input(convert)
    convert.add_argument("outfile", help="mesh file to write")
    convert.add_argument("--output-format", "-o", metavar="FORMAT", choices=sorted(_writer_map),
                         help="output file format (default: from the file name)")
    encoding = convert.add_mutually_exclusive_group()
    encoding.add_argument("--ascii", "-a", action="store_true",
                          help="write the text variant (text-only formats ignore it)")
    encoding.add_argument("--binary", "-b", action="store_true", help="write the binary variant")
    convert.add_argument("--float-format", "-f",
                         help="Python format spec for the floats of text formats that take float_fmt "
                              "(default: the shortest form that reads back exactly)")
    convert.add_argument("--sets-to-int-data", "-s", action="store_true",
                         help="turn point/cell sets into integer data")
    convert.add_argument("--int-data-to-sets", "-d", action="store_true",
                         help="turn integer point/cell data into sets")
    convert.add_argument("--drop", metavar="TYPES",
                         help="comma-separated cell types to leave out (e.g. vertex,line for a format "
                              "that cannot hold them); points only those cells used go too")
    convert.add_argument("--crop", nargs=6, type=float, metavar=("XMIN", "YMIN", "ZMIN", "XMAX", "YMAX", "ZMAX"),
                         help="keep the cells whose corners all lie in the box (2-D points: z ignored)")
    convert.add_argument("--crop-region", metavar="NAME", help="keep the cells of the Cell/Side region NAME")
    cleanup = convert.add_argument_group("clean-up (run in this order, after --drop, --crop, --crop-region; "
                                         "docs/clean-up.md)")
    cleanup.add_argument("--remove-lower-dimensional-cells", action="store_true",
                         help="keep only the cell blocks of the highest dimension")
    cleanup.add_argument("--merge-points", metavar="TOL", type=float,
                         help="weld points closer than TOL (0: equal coordinates)")
    cleanup.add_argument("--remove-orphans", "--remove-orphaned-nodes", dest="remove_orphaned_nodes",
                         action="store_true", help="remove the points no cell uses")
    cleanup.add_argument("--prune-z-0", dest="prune_z_0", action="store_true",
                         help="drop z when it is 0 everywhere (2-D meshes for FEniCS)")
    cleanup.add_argument("--extract-surface", action="store_true",
                         help="write the outward boundary facets instead of the cells (last)")
    convert.set_defaults(run=_convert)

    checking = commands.add_parser("check", help="report inverted, degenerate and duplicate cells, unused points "
                                                 "and non-manifold facets (exit status 1 when there are any)")
    add_input(checking)
    checking.set_defaults(run=_check)

    cleaning = commands.add_parser(
        "clean", help="merge equal points, drop degenerate and duplicate cells, remove orphaned points "
                      "(writes OUT, or IN in place)",
        description="By default: weld points with equal coordinates, remove the cells check() finds "
                    "degenerate or duplicate (with the points only they used) and the points no cell uses. "
                    "Without OUT the input is rewritten in place (a failed write leaves it unchanged).")
    add_input(cleaning)
    cleaning.add_argument("outfile", nargs="?", help="mesh file to write (default: rewrite IN)")
    cleaning.add_argument("--output-format", "-o", metavar="FORMAT", choices=sorted(_writer_map),
                          help="output file format (default: from OUT's name, else IN's format)")
    welding = cleaning.add_mutually_exclusive_group()
    welding.add_argument("--merge-points", metavar="TOL", type=float,
                         help="weld points within TOL (default 0: equal coordinates)")
    welding.add_argument("--no-merge-points", action="store_true", help="leave the points as they are")
    cleaning.add_argument("--keep-degenerate", action="store_true",
                          help="keep cells with a repeated node or zero volume/area/length")
    cleaning.add_argument("--keep-duplicate-cells", action="store_true",
                          help="keep cells with the same type and nodes as an earlier one")
    cleaning.add_argument("--keep-orphans", action="store_true", help="keep the points no cell uses")
    cleaning.add_argument("--remove-lower-dimensional-cells", action="store_true",
                          help="also keep only the cell blocks of the highest dimension (first)")
    cleaning.add_argument("--prune-z-0", dest="prune_z_0", action="store_true",
                          help="also drop z when it is 0 everywhere (last)")
    cleaning.set_defaults(run=_clean)

    info = commands.add_parser("info", aliases=["i"], help="summarise a mesh file (or, with --formats, this build)")
    info.add_argument("infile", nargs="?", help="mesh file to read")
    info.add_argument("--input-format", "-i", metavar="FORMAT", choices=sorted(reader_map),
                      help="input file format (default: from the file name)")
    info.add_argument("--formats", action="store_true",
                      help="list the formats and which optional libraries this build has")
    info.add_argument("--fast", action="store_true",
                      help="summarise from the file's header without reading its arrays, where the format allows "
                           "(docs/read-less.md)")
    info.add_argument("--json", action="store_true",
                      help="print read_metadata's dict as JSON (schema in docs/read-less.md)")
    add_isolation(info)
    info.set_defaults(run=_info)

    compress = commands.add_parser("compress", help="rewrite a file compressed (in place)")
    add_input(compress)
    compress.add_argument("--max", "-max", action="store_true", help="maximum compression")
    compress.set_defaults(run=lambda args: _rewrite(args, _compress_options, "compress"))

    decompress = commands.add_parser("decompress", help="rewrite a file uncompressed (in place)")
    add_input(decompress)
    decompress.set_defaults(run=lambda args: _rewrite(args, _decompress_options, "decompress"))

    ascii_ = commands.add_parser("ascii", aliases=["a"], help="rewrite a file as text (in place)")
    add_input(ascii_)
    ascii_.set_defaults(run=lambda args: _rewrite(args, _ascii_options, "convert to ASCII"))

    binary = commands.add_parser("binary", aliases=["b"], help="rewrite a file as binary (in place)")
    add_input(binary)
    binary.set_defaults(run=lambda args: _rewrite(args, _binary_options, "convert to binary"))
    parts = commands.add_parser("partition", help="split a mesh into pieces (METIS) and write a .pvtu")
    add_input(parts)
    parts.add_argument("outfile", help="the .pvtu index to write (pieces go beside it)")
    parts.add_argument("-n", "--parts", type=int, required=True, help="number of pieces")
    parts.add_argument("--method", choices=["auto", "metis", "geometric"], default="auto",
                       help="METIS graph partitioning (pymetis) or coordinate bisection (default: METIS if installed)")
    parts.set_defaults(run=_partition)
    return parser


def _cli_words(message):
    """Error texts from the Python API name keywords; on the command line, name the flags."""
    return message.replace("file_format", "-i/--input-format or -o/--output-format")


def main(argv=None):
    args = build_parser().parse_args(argv)
    try:
        return args.run(args)
    except CliError as error:
        print(f"meshioplusplus: error: {error}", file=sys.stderr)
        return 1
    except (MeshioError, OSError, ValueError) as error:
        print(f"meshioplusplus: error: {_cli_words(str(error))}", file=sys.stderr)
        return 1
