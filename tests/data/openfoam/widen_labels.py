"""Rewrites the binary label lists of an OpenFOAM polyMesh written with 32-bit labels
(arch "LSB;label=32;scalar=64") as 64-bit labels (arch "LSB;label=64;scalar=64"), as an
OpenFOAM built with WM_LABEL_SIZE=64 writes them. Usage: widen_labels.py FILE... (in place)."""
import re
import sys

import numpy as np

for path in sys.argv[1:]:
    data = open(path, "rb").read()
    header_end = data.index(b"}", data.index(b"FoamFile")) + 1
    header = data[:header_end].replace(b"label=32", b"label=64")
    body = data[header_end:]
    label_file = re.search(rb"class\s+(labelList|faceCompactList)", header) is not None
    if label_file:
        out = bytearray()
        pos = 0
        while True:
            match = re.compile(rb"(\d+)\s*\(").search(body, pos)
            if match is None:
                break
            count = int(match.group(1))
            start = match.end()
            raw = body[start:start + 4 * count]
            assert body[start + 4 * count:start + 4 * count + 1] == b")", path
            out += body[pos:start] + np.frombuffer(raw, "<i4").astype("<i8").tobytes() + b")"
            pos = start + 4 * count + 1
        body = bytes(out) + body[pos:]
    open(path, "wb").write(header + body)
