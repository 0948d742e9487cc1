"""Writes the binary form of an ASCII Abaqus .fil file (no public binary .fil file was found):
the same records as 8-byte little-endian words (I: int64, D: float64, A: 8 characters) in
Fortran records of 512 words framed by 4-byte length markers, the last block padded with zero
words — the layout Abaqus documents for *FILE FORMAT, BINARY.

    python make_binary_fil.py in.fil out.fil [increments]

With `increments` > 1 the file's last increment is repeated that many times, increment k with
total time, step time and increment number k and its real node output values times k (a
many-step file for the laziness tests)."""

import struct
import sys


def ascii_records(text):
    text = text.replace("\n", "").replace("\r", "")
    records = []
    for chunk in text.split("*")[1:]:
        fields, i = [], 0
        while i < len(chunk):
            kind = chunk[i]
            if kind == "I":
                width = int(chunk[i + 1:i + 3])
                fields.append(int(chunk[i + 3:i + 3 + width]))
                i += 3 + width
            elif kind == "D":
                fields.append(float(chunk[i + 1:i + 23].replace("D", "E")))
                i += 23
            elif kind == "A":
                fields.append(chunk[i + 1:i + 9].encode("latin-1"))
                i += 9
            elif kind == " ":
                i += 1
            else:
                raise ValueError(f"unknown field {chunk[i:i + 10]!r}")
        records.append(fields)
    return records


def repeat_increments(records, count):
    starts = [k for k, r in enumerate(records) if r[1] == 2000]
    model, increment = records[:starts[-1]], records[starts[-1]:]
    out = list(model)
    for k in range(1, count + 1):
        for record in increment:
            record = list(record)
            if record[1] == 2000:
                record[2], record[3], record[8] = float(k), float(k), k
            elif 101 <= record[1] <= 399 and record[1] != 107:
                record[3:] = [v * k if isinstance(v, float) else v for v in record[3:]]
            out.append(record)
    return out


def binary_bytes(records):
    words = bytearray()
    for record in records:
        for value in record:
            if isinstance(value, int):
                words += struct.pack("<q", value)
            elif isinstance(value, float):
                words += struct.pack("<d", value)
            else:
                words += value.ljust(8)[:8]
    block = 4096
    words += bytes((-len(words)) % block)
    out = bytearray()
    for start in range(0, len(words), block):
        out += struct.pack("<i", block) + words[start:start + block] + struct.pack("<i", block)
    return bytes(out)


def main(source, target, increments=1):
    with open(source, encoding="latin-1") as f:
        records = ascii_records(f.read())
    if increments > 1:
        records = repeat_increments(records, increments)
    with open(target, "wb") as f:
        f.write(binary_bytes(records))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 1)
