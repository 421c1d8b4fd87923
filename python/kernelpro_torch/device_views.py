"""Torch tensors over memory the harness owns, without copying: a DLPack capsule built here with
ctypes (DLPack's C structs are a public, stable ABI) and handed to torch.from_dlpack. This needs no
numpy (torch's __cuda_array_interface__ import does) and covers every task dtype, bf16 and bool
included. The capsule's deleter is left empty: the harness frees the memory. torch keeps a pointer
to the DLPack structs until its tensor dies, so every view is kept alive for the life of the
process (a worker makes a few dozen)."""
from __future__ import annotations

import ctypes

import torch

_KDL_CPU, _KDL_CUDA = 1, 2
_KDL_INT, _KDL_UINT, _KDL_FLOAT, _KDL_BFLOAT, _KDL_BOOL = 0, 1, 2, 4, 6
# task dtype -> (DLPack type code, bits)
DL_TYPES = {"f32": (_KDL_FLOAT, 32), "f16": (_KDL_FLOAT, 16), "bf16": (_KDL_BFLOAT, 16), "f64": (_KDL_FLOAT, 64),
            "i32": (_KDL_INT, 32), "i64": (_KDL_INT, 64), "u8": (_KDL_UINT, 8), "bool": (_KDL_BOOL, 8)}


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int32), ("dtype", _DLDataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)), ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


class _DLManagedTensor(ctypes.Structure):
    pass


_DLManagedTensor._fields_ = [("dl_tensor", _DLTensor), ("manager_ctx", ctypes.c_void_p),
                             ("deleter", ctypes.CFUNCTYPE(None, ctypes.POINTER(_DLManagedTensor)))]

_capsule_new = ctypes.pythonapi.PyCapsule_New
_capsule_new.restype = ctypes.py_object
_capsule_new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
_KEPT: list = []  # every DeviceView ever made (see the module's docstring)


class DeviceView:
    """One tensor over (pointer, shape, stride in elements, dtype) on `device` ("cuda" or "cpu")."""

    def __init__(self, pointer: int, shape, stride, dtype: str, device: str = "cuda", device_index: int = 0):
        code, bits = DL_TYPES[dtype]
        self._shape = (ctypes.c_int64 * max(1, len(shape)))(*shape)
        self._stride = (ctypes.c_int64 * max(1, len(stride)))(*stride)
        self._managed = _DLManagedTensor()
        t = self._managed.dl_tensor
        t.data = pointer
        t.device = _DLDevice(_KDL_CUDA if device == "cuda" else _KDL_CPU, device_index if device == "cuda" else 0)
        t.ndim = len(shape)
        t.dtype = _DLDataType(code, bits, 1)
        t.shape = ctypes.cast(self._shape, ctypes.POINTER(ctypes.c_int64))
        t.strides = ctypes.cast(self._stride, ctypes.POINTER(ctypes.c_int64))
        t.byte_offset = 0
        capsule = _capsule_new(ctypes.addressof(self._managed), b"dltensor", None)
        self.tensor = torch.utils.dlpack.from_dlpack(capsule)
        _KEPT.append(self)


class ViewCache:
    """The harness reuses a few buffers (rotating input sets, the output groups): one view per
    (pointer, layout), built on first sight, so a call costs a dictionary lookup per tensor."""

    def __init__(self, device: str = "cuda"):
        self.device = device
        self._views: dict[tuple, DeviceView] = {}

    def tensor(self, pointer: int, spec: dict) -> torch.Tensor:
        key = (pointer, spec["dtype"], tuple(spec["shape"]), tuple(spec["stride"]))
        view = self._views.get(key)
        if view is None:
            view = DeviceView(pointer, spec["shape"], spec["stride"], spec["dtype"], self.device)
            self._views[key] = view
        return view.tensor
