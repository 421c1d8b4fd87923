"""The safetensors format, written and read with torch alone (no numpy, no safetensors package):
an 8-byte little-endian header length, a JSON header {name: {dtype, shape, data_offsets}}, then the
raw bytes of each tensor, contiguous and row-major. kernelpro's C++ side reads the same files
(src/task/safetensors.*)."""
from __future__ import annotations

import ctypes
import json
import os
import struct
from pathlib import Path

import torch

_CODES = {torch.float32: "F32", torch.float16: "F16", torch.bfloat16: "BF16", torch.float64: "F64",
          torch.int32: "I32", torch.int64: "I64", torch.uint8: "U8", torch.bool: "BOOL"}
_DTYPES = {v: k for k, v in _CODES.items()}


def _contiguous_cpu(tensor: torch.Tensor) -> torch.Tensor:
    return tensor.detach().to("cpu").contiguous()


def _memory(t: torch.Tensor) -> memoryview:
    """The tensor's bytes, without a copy (parameters of a level-3 model reach gigabytes)."""
    nbytes = t.numel() * t.element_size()
    return memoryview((ctypes.c_char * nbytes).from_address(t.data_ptr())) if nbytes else memoryview(b"")


def write_safetensors(path: str | Path, tensors: dict[str, torch.Tensor]) -> None:
    """Writes to a temporary file and renames it into place, so a reader never sees half a file."""
    header, blobs, offset = {}, [], 0
    for name, tensor in tensors.items():
        if tensor.dtype not in _CODES:
            raise ValueError(f"tensor '{name}': dtype {tensor.dtype} has no safetensors code here")
        t = _contiguous_cpu(tensor)
        size = t.numel() * t.element_size()
        header[name] = {"dtype": _CODES[tensor.dtype], "shape": list(tensor.shape), "data_offsets": [offset, offset + size]}
        blobs.append(t)
        offset += size
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)  # the format pads the header to a multiple of 8 bytes
    path = Path(path)
    partial = path.with_name(path.name + ".partial")
    with open(partial, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for t in blobs:
            f.write(_memory(t))
    os.replace(partial, path)


def read_safetensors(path: str | Path) -> dict[str, torch.Tensor]:
    data = Path(path).read_bytes()
    if len(data) < 8:
        raise ValueError(f"{path}: too short for a safetensors file")
    (length,) = struct.unpack("<Q", data[:8])
    if 8 + length > len(data):
        raise ValueError(f"{path}: header length {length} runs past the end of the file")
    header = json.loads(data[8:8 + length])
    body = memoryview(data)[8 + length:]
    tensors = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        begin, end = entry["data_offsets"]
        dtype = _DTYPES[entry["dtype"]]
        raw = bytearray(body[begin:end])  # a writable copy: torch.frombuffer warns on read-only memory
        flat = torch.frombuffer(raw, dtype=dtype) if raw else torch.empty(0, dtype=dtype)
        tensors[name] = flat.reshape(entry["shape"]).clone()
    return tensors
