"""The ModelNew that `kernelpro kernelbench export` writes, built for real with
torch.utils.cpp_extension.load_inline (nvcc and the torch headers; about a minute of CPU). Without a
GPU the kernel cannot run, so the test stops at the first CUDA call: reaching it shows the C++
wrapper compiled and is what forward() calls."""
import os
import runpy
import subprocess
import tempfile
import unittest

import needs_torch  # noqa: F401  (skips this module without PyTorch)
import torch


class ExportBuildTest(unittest.TestCase):
    def test_exported_model_new_builds_and_keeps_the_constructor(self):
        if torch.version.cuda is None:
            self.skipTest(f"PyTorch {torch.__version__} is a CPU-only build: load_inline cannot build CUDA sources")
        kernelpro = os.environ["KERNELPRO_BIN"]
        problems, candidates = os.environ["KP_TEST_PROBLEMS"], os.environ["KP_TEST_CANDIDATES"]
        with tempfile.TemporaryDirectory() as d:
            subprocess.run([kernelpro, "import", os.path.join(problems, "9_ScaleByConstant.py"), "--out", d, "-q"],
                           check=True, capture_output=True)
            out = os.path.join(d, "model_new.py")
            subprocess.run([kernelpro, "kernelbench", "export", os.path.join(candidates, "scale_by_constant.cu"),
                            "--task", os.path.join(d, "9_ScaleByConstant"), "--out", out], check=True, capture_output=True)
            os.environ.setdefault("TORCH_CUDA_ARCH_LIST", "9.0")  # no GPU here to ask
            os.environ["TORCH_EXTENSIONS_DIR"] = os.path.join(d, "extensions")
            namespace = runpy.run_path(out)
            model = namespace["ModelNew"]()
            self.assertEqual(type(model).__mro__[1].__name__, "Model")
            with self.assertRaises(TypeError):  # the shape the kernel was checked on is enforced
                model(torch.rand(256, 127), 2.5)
            if not torch.cuda.is_available():
                with self.assertRaisesRegex(Exception, "CUDA|cuda|driver"):
                    model(torch.rand(256, 128), 2.5)
            else:
                a = torch.rand(256, 128, device="cuda")
                self.assertTrue(torch.allclose(model.cuda()(a, 2.5), a * 2.5))


if __name__ == "__main__":
    unittest.main()
