// A trusted reference/baseline library in the candidate ABI whose kp_forward runs a PyTorch module:
// kernelpro_torch.bridge.Reference (python/) holds the module (eager, or torch.compile'd: the mode
// is compiled in, one library per mode, so both can live in one worker), wraps the harness's
// device buffers as torch tensors without copying, and calls the module on the harness stream.
// kp_bridge_finish copies the module's result into the harness's outputs after the timed region:
// what is timed is the module's forward, as KernelBench times it. See docs/kernelbench.md.
#include <string>

#include "kernelpro/abi.h"
#include "pytorch_bridge/python_api.h"

#ifndef KP_TORCH_MODE
#error "KP_TORCH_MODE (eager or compile) must be defined"
#endif

using namespace kp::bridge;

namespace {

PyObject* g_forward = nullptr;  // bound methods of the Reference object, kept for the worker's life
PyObject* g_finish = nullptr;
long long g_forward_inputs = 0;
std::string g_error;

int fail(std::string why) {
    g_error = std::move(why);
    return 1;
}

PyObject* pointers(const kp_tensor* tensors, long long n) {
    const PythonApi& py = python_api();
    PyObject* tuple = py.PyTuple_New(static_cast<intptr_t>(n));
    for (long long i = 0; tuple && i < n; ++i) py.PyTuple_SetItem(tuple, static_cast<intptr_t>(i), py.PyLong_FromVoidPtr(tensors[i].data));
    return tuple;
}

// Calls `method(args...)` (args stolen); 0 when it returned without an exception.
int call(PyObject* method, std::initializer_list<PyObject*> args, const char* what) {
    const PythonApi& py = python_api();
    PyObject* tuple = py.PyTuple_New(static_cast<intptr_t>(args.size()));
    intptr_t i = 0;
    for (PyObject* a : args) py.PyTuple_SetItem(tuple, i++, a);
    PyObject* result = py.PyObject_CallObject(method, tuple);
    py.Py_DecRef(tuple);
    if (!result) return fail(std::string(what) + ": " + take_python_error());
    py.Py_DecRef(result);
    return 0;
}

}  // namespace

KP_EXPORT int kp_bridge_configure(const char* task_json) {
    const PythonApi& py = python_api();
    if (!py.problem.empty()) return fail(py.problem);
    GilLock gil;
    PyObject* module = py.PyImport_ImportModule("kernelpro_torch.bridge");
    if (!module) return fail("cannot import kernelpro_torch.bridge: " + take_python_error());
    PyObject* type = py.PyObject_GetAttrString(module, "Reference");
    py.Py_DecRef(module);
    if (!type) return fail(take_python_error());
    PyObject* args = py.PyTuple_New(2);
    py.PyTuple_SetItem(args, 0, py.PyUnicode_FromString(task_json));
    py.PyTuple_SetItem(args, 1, py.PyUnicode_FromString(KP_TORCH_MODE));
    PyObject* reference = py.PyObject_CallObject(type, args);
    py.Py_DecRef(args);
    py.Py_DecRef(type);
    if (!reference) return fail("the PyTorch " KP_TORCH_MODE " reference could not start: " + take_python_error());
    g_forward = py.PyObject_GetAttrString(reference, "forward");
    g_finish = py.PyObject_GetAttrString(reference, "finish");
    PyObject* count = py.PyObject_GetAttrString(reference, "forward_inputs");
    py.Py_DecRef(reference);
    if (!g_forward || !g_finish || !count) return fail(take_python_error());
    g_forward_inputs = py.PyLong_AsLongLong(count);
    py.Py_DecRef(count);
    return 0;
}

KP_EXPORT int kp_forward(const kp_tensor* inputs, int n_inputs, kp_tensor* outputs, int n_outputs, cudaStream_t stream) {
    if (!g_forward) return fail("kp_forward before kp_bridge_configure");
    if (g_forward_inputs > n_inputs) return fail("fewer inputs than the module's forward takes");
    const PythonApi& py = python_api();
    GilLock gil;
    return call(g_forward, {pointers(inputs, g_forward_inputs), pointers(outputs, n_outputs), py.PyLong_FromVoidPtr(stream)},
                "forward");
}

KP_EXPORT int kp_bridge_finish(kp_tensor* outputs, int n_outputs, cudaStream_t stream) {
    if (!g_finish) return fail("kp_bridge_finish before kp_bridge_configure");
    const PythonApi& py = python_api();
    GilLock gil;
    return call(g_finish, {pointers(outputs, n_outputs), py.PyLong_FromVoidPtr(stream)}, "finish");
}

KP_EXPORT const char* kp_bridge_error(void) { return g_error.c_str(); }
