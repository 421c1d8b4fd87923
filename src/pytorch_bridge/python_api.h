// The few functions of CPython's stable ABI the PyTorch bridge calls, found at run time in the
// process (dlsym on the global scope) rather than linked: the bridge libraries then build without
// Python headers, work with any Python 3.x, and fail with one clear message when the worker was
// not started inside an interpreter (kernelpro does that for PyTorch tasks; docs/kernelbench.md).
#pragma once

#include <cstdint>
#include <string>

namespace kp::bridge {

using PyObject = struct _object;

struct PythonApi {
    int (*Py_IsInitialized)() = nullptr;
    int (*PyGILState_Ensure)() = nullptr;  // PyGILState_STATE is an enum: an int in the ABI
    void (*PyGILState_Release)(int) = nullptr;
    PyObject* (*PyImport_ImportModule)(const char*) = nullptr;
    PyObject* (*PyObject_GetAttrString)(PyObject*, const char*) = nullptr;
    PyObject* (*PyObject_CallObject)(PyObject*, PyObject*) = nullptr;
    PyObject* (*PyTuple_New)(intptr_t) = nullptr;
    int (*PyTuple_SetItem)(PyObject*, intptr_t, PyObject*) = nullptr;  // steals the item
    PyObject* (*PyLong_FromLongLong)(long long) = nullptr;
    PyObject* (*PyLong_FromVoidPtr)(void*) = nullptr;
    long long (*PyLong_AsLongLong)(PyObject*) = nullptr;
    PyObject* (*PyUnicode_FromString)(const char*) = nullptr;
    const char* (*PyUnicode_AsUTF8AndSize)(PyObject*, intptr_t*) = nullptr;
    PyObject* (*PyObject_Str)(PyObject*) = nullptr;
    PyObject* (*PyErr_Occurred)() = nullptr;
    void (*PyErr_Fetch)(PyObject**, PyObject**, PyObject**) = nullptr;
    void (*PyErr_Clear)() = nullptr;
    void (*Py_DecRef)(PyObject*) = nullptr;

    // Empty when every function was found and the interpreter is running; else why not.
    std::string problem;
};

// Resolved once per process.
const PythonApi& python_api();

// Holds the GIL for its lifetime (the worker's thread does not hold it between calls).
class GilLock {
public:
    GilLock() : state_(python_api().PyGILState_Ensure()) {}
    ~GilLock() { python_api().PyGILState_Release(state_); }
    GilLock(const GilLock&) = delete;
    GilLock& operator=(const GilLock&) = delete;

private:
    int state_;
};

// The pending Python exception as one line ("ValueError: ..."), cleared; "" when there is none.
std::string take_python_error();

}  // namespace kp::bridge
