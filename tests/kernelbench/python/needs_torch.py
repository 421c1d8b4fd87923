"""Imported first by every test module here: without PyTorch (scripts/setup installs it) the module
is skipped, and unittest prints why."""
import sys
import unittest

try:
    import torch  # noqa: F401
except ImportError as error:
    raise unittest.SkipTest(f"PyTorch is not importable by {sys.executable} (scripts/setup installs it): {error}")
