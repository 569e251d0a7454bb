"""Checks that dlm checkpoints are plain safetensors files that numpy can read, and that dlm
loads a safetensors file written by Python.

Usage: checkpoint_numpy.py TOOL DIR   (TOOL is dlm_checkpoint_tool)
"""
import json
import struct
import subprocess
import sys
import zlib

import numpy as np

DT = {"F32": np.float32, "F64": np.float64, "I32": np.int32, "I64": np.int64, "BOOL": np.bool_}


def read_safetensors(path):
    blob = open(path, "rb").read()
    (n,) = struct.unpack("<Q", blob[:8])
    header = json.loads(blob[8:8 + n])
    data = blob[8 + n:]
    meta = header.pop("__metadata__", {})
    if "crc32" in meta:
        assert int(meta["crc32"], 16) == zlib.crc32(data), "crc32 mismatch"
    out = []
    for name in sorted(header, key=int):
        e = header[name]
        b, end = e["data_offsets"]
        out.append(np.frombuffer(data[b:end], dtype=DT[e["dtype"]]).reshape(e["shape"]))
    return out


def write_safetensors(path, arrays):
    header, data = {}, b""
    for i, a in enumerate(arrays):
        raw = np.ascontiguousarray(a).tobytes()
        kind = {v: k for k, v in DT.items()}[a.dtype.type]
        header[str(i)] = {"dtype": kind, "shape": list(a.shape),
                          "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    header["__metadata__"] = {"crc32": "%08x" % zlib.crc32(data)}
    h = json.dumps(header).encode()
    open(path, "wb").write(struct.pack("<Q", len(h)) + h + data)


def main():
    tool, folder = sys.argv[1], sys.argv[2]
    path = folder + "/from_dlm.safetensors"
    subprocess.run([tool, "save", path], check=True)
    a, b, c, d, e = read_safetensors(path)
    want_a = np.array([[0.5, -1.25, 3.0], [1e-3, 7.0, 8.0]], dtype=np.float32).T
    assert a.dtype == np.float32 and np.array_equal(a, want_a), a
    assert b.dtype == np.int64 and b.tolist() == [-7, 1 << 40], b
    assert c.dtype == np.bool_ and c.tolist() == [True, False], c
    assert d.shape == () and d == 0.1, d
    assert e.dtype == np.int32 and e.tolist() == [1, 2, 3], e
    print("numpy read the dlm checkpoint")

    path = folder + "/from_python.safetensors"
    write_safetensors(path, [np.arange(6, dtype=np.float64).reshape(2, 3), np.array([True, False])])
    out = subprocess.run([tool, "load", path], capture_output=True, text=True, check=True).stdout
    print(out, end="")


if __name__ == "__main__":
    main()
