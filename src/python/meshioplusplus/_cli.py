"""Command line: ``meshioplusplus convert`` and ``meshioplusplus info``."""

import argparse
import sys
import time

import numpy as np

from . import _core
from ._helpers import read, write


def _format_help():
    rows = []
    for row in _core.formats():
        modes = "r" * row["can_read"] + "w" * row["can_write"]
        rows.append(f"  {row['name']:<10} {modes:<3} {' '.join(row['extensions']):<16} {row['description']}")
    return "formats:\n" + "\n".join(rows)


class _Progress:
    """Phase messages on stderr, only when a person is watching a terminal."""

    def __init__(self, enabled):
        self.enabled = enabled
        self.started = None

    def begin(self, text):
        self.started = time.perf_counter()
        if self.enabled:
            sys.stderr.write(f"{text}… ")
            sys.stderr.flush()

    def end(self):
        elapsed = time.perf_counter() - self.started
        if self.enabled:
            sys.stderr.write(f"done ({elapsed:.2f} s)\n")
        return elapsed


def _convert(args):
    progress = _Progress(sys.stderr.isatty())
    progress.begin(f"reading {args.infile}")
    mesh = read(args.infile, file_format=args.input_format)
    progress.end()
    options = {}
    if args.ascii:
        options["binary"] = False
    elif args.binary:
        options["binary"] = True
    progress.begin(f"writing {args.outfile}")
    write(args.outfile, mesh, file_format=args.output_format, **options)
    progress.end()
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
            lines.append(f"    {name}: " + ", ".join(_describe_array(a) for a in per_block))
    if mesh.regions:
        lines.append("  regions:")
        for region in mesh.regions:
            lines.append(
                f"    {region.name!r}: {region.kind.name.lower()}, dim {region.dim}, tag {region.tag}, {len(region.entries)} entries"
            )
    return "\n".join(lines)


def _info(args):
    started = time.perf_counter()
    mesh = read(args.infile, file_format=args.input_format)
    print(info_text(mesh, args.infile, time.perf_counter() - started))
    return 0


def build_parser():
    parser = argparse.ArgumentParser(
        prog="meshioplusplus",
        description="Convert and inspect mesh files.",
        epilog=_format_help(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    commands = parser.add_subparsers(dest="command", required=True)
    convert = commands.add_parser("convert", help="convert a mesh file to another format")
    convert.add_argument("infile")
    convert.add_argument("outfile")
    convert.add_argument("--input-format", "-i")
    convert.add_argument("--output-format", "-o")
    encoding = convert.add_mutually_exclusive_group()
    encoding.add_argument("--ascii", "-a", action="store_true", help="write text")
    encoding.add_argument("--binary", "-b", action="store_true", help="write binary")
    convert.set_defaults(run=_convert)
    info = commands.add_parser("info", help="summarise a mesh file")
    info.add_argument("infile")
    info.add_argument("--input-format", "-i")
    info.set_defaults(run=_info)
    return parser


def main(argv=None):
    from ._exceptions import MeshioError

    args = build_parser().parse_args(argv)
    try:
        return args.run(args)
    except (MeshioError, FileNotFoundError, ValueError) as error:
        print(f"meshioplusplus: error: {error}", file=sys.stderr)
        return 1
