"""safetensors without numpy, and torch tensors over memory someone else owns (DLPack, no copy)."""
import os
import tempfile
import unittest

import needs_torch  # noqa: F401  (skips this module without PyTorch)
import torch

from kernelpro_torch.device_views import DeviceView, ViewCache
from kernelpro_torch.safetensors_io import read_safetensors, write_safetensors


class SafetensorsTest(unittest.TestCase):
    def test_round_trip_of_every_task_dtype(self):
        tensors = {"f32": torch.randn(3, 4), "bf16": torch.randn(5).bfloat16(), "f16": torch.randn(2, 2).half(),
                   "i64 scalar": torch.tensor(7), "bool": torch.tensor([True, False, True]),
                   "u8": torch.arange(6, dtype=torch.uint8), "empty": torch.zeros(0, 3)}
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "t.safetensors")
            write_safetensors(path, tensors)
            back = read_safetensors(path)
            with open(path, "rb") as f:
                header_length = int.from_bytes(f.read(8), "little")
        self.assertEqual(set(back), set(tensors))
        for name, t in tensors.items():
            self.assertEqual(back[name].dtype, t.dtype, name)
            self.assertTrue(torch.equal(back[name], t), name)
        self.assertEqual(header_length % 8, 0)

    def test_truncated_file_is_an_error(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "t.safetensors")
            with open(path, "wb") as f:
                f.write(b"\xff" * 12)
            with self.assertRaises(ValueError):
                read_safetensors(path)


class DeviceViewTest(unittest.TestCase):
    def test_views_alias_the_memory_with_the_given_layout(self):
        for dtype, torch_dtype in [("f32", torch.float32), ("bf16", torch.bfloat16), ("f16", torch.float16),
                                   ("bool", torch.bool), ("i32", torch.int32), ("u8", torch.uint8)]:
            owner = torch.arange(24).reshape(4, 6).to(torch_dtype)
            view = DeviceView(owner.data_ptr(), [6, 4], [1, 6], dtype, device="cpu").tensor
            self.assertEqual(view.dtype, torch_dtype)
            self.assertTrue(torch.equal(view, owner.t()), dtype)
            self.assertEqual(view.data_ptr(), owner.data_ptr())
        owner = torch.zeros(3)
        DeviceView(owner.data_ptr(), [3], [1], "f32", device="cpu").tensor.fill_(2.0)
        self.assertTrue(torch.equal(owner, torch.full((3,), 2.0)))  # writes land in the owner's memory

    def test_scalar_and_cache(self):
        owner = torch.tensor(3.5)
        cache = ViewCache("cpu")
        spec = {"dtype": "f32", "shape": [], "stride": []}
        a = cache.tensor(owner.data_ptr(), spec)
        self.assertIs(a, cache.tensor(owner.data_ptr(), spec))
        self.assertEqual(a.item(), 3.5)


if __name__ == "__main__":
    unittest.main()
