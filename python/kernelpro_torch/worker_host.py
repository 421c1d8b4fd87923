"""kernelpro-worker inside a Python interpreter, for tasks whose reference is a PyTorch module.

    python3 worker_host.py /path/libkernelpro_worker.so --channel-fd 3

kernelpro starts this instead of the kernelpro-worker program (same code, built as a library): the
PyTorch bridge libraries the worker loads then find a running interpreter in the process. Nothing
else is imported here: the worker sets up its sandbox's processes while it is still single-threaded,
and PyTorch (imported by the bridge, in the confined child) then shares the CUDA runtime the worker
loaded (CUDA 13 both). ctypes releases the GIL for the call; the bridge takes it for each of its
own calls.
"""
import ctypes
import os
import sys


def main() -> int:
    if len(sys.argv) < 2:
        print("usage: worker_host.py LIBKERNELPRO_WORKER.so --channel-fd N", file=sys.stderr)
        return 2
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    library = ctypes.CDLL(sys.argv[1])
    argv = [sys.argv[1]] + sys.argv[2:]
    array = (ctypes.c_char_p * (len(argv) + 1))(*[a.encode() for a in argv], None)
    library.kp_worker_main.argtypes = [ctypes.c_int, ctypes.POINTER(ctypes.c_char_p)]
    library.kp_worker_main.restype = ctypes.c_int
    return library.kp_worker_main(len(argv), array)


if __name__ == "__main__":
    sys.exit(main())
