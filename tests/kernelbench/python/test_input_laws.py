"""What get_inputs draws, traced on the meta device: affine maps keep a distribution, structure
(two draws combined, triu, softmax) does not."""
import unittest

import needs_torch  # noqa: F401  (skips this module without PyTorch)
import torch

from kernelpro_torch.input_laws import LawTracker


def trace(fn):
    tracker = LawTracker()
    with torch.device("meta"), tracker:
        values = fn()
    return [tracker.law_of(v) for v in values], values


class InputLawsTest(unittest.TestCase):
    def test_factories(self):
        laws, values = trace(lambda: [torch.rand(4, 5), torch.randn(3), torch.randint(2, 9, (6,))])
        self.assertEqual((laws[0].kind, laws[0].a, laws[0].b), ("uniform", 0.0, 1.0))
        self.assertEqual((laws[1].kind, laws[1].a, laws[1].b), ("normal", 0.0, 1.0))
        self.assertEqual((laws[2].kind, laws[2].a, laws[2].b), ("integer", 2.0, 8.0))
        self.assertEqual(values[0].device.type, "meta")  # nothing was drawn

    def test_affine_maps_and_views(self):
        laws, _ = trace(lambda: [torch.rand(4) * 2 - 1, 3 - torch.randn(2, 2) * 0.5, torch.rand(2, 3).t().contiguous()])
        self.assertEqual((laws[0].kind, laws[0].a, laws[0].b), ("uniform", -1.0, 1.0))
        self.assertEqual((laws[1].kind, laws[1].a, laws[1].b), ("normal", 3.0, 0.5))
        self.assertEqual(laws[2].kind, "uniform")

    def test_casts(self):
        laws, _ = trace(lambda: [torch.randint(0, 2, (5,)).bool(), torch.randint(0, 2, (5,)).float() * 2 - 1])
        self.assertEqual((laws[0].kind, laws[0].a, laws[0].b), ("integer", 0.0, 1.0))
        self.assertEqual((laws[1].kind, laws[1].a, laws[1].b), ("integer", -1.0, 1.0))
        self.assertIn("2 apart", laws[1].note)

    def test_random_scale_is_an_approximation_with_a_note(self):
        def draw():
            scale = torch.rand(())
            return [torch.rand(8) * scale]
        laws, _ = trace(draw)
        self.assertEqual((laws[0].kind, laws[0].a, laws[0].b), ("uniform", 0.0, 1.0))
        self.assertIn("random factor", laws[0].note)

    def test_structure_is_not_a_distribution(self):
        def symmetric():
            a = torch.rand(4, 4)
            return [(a + a.T) / 2]
        for fn, word in [(symmetric, "add"), (lambda: [torch.triu(torch.rand(3, 3))], "triu"),
                         (lambda: [torch.rand(2, 5).softmax(dim=-1)], "softmax"),
                         (lambda: [torch.empty(3)], "undefined"), (lambda: [torch.arange(4.0)], "fixed values")]:
            laws, _ = trace(fn)
            self.assertEqual(laws[0].kind, "structured", word)
            self.assertIn(word, laws[0].note)


if __name__ == "__main__":
    unittest.main()
