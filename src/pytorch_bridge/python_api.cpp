#include "pytorch_bridge/python_api.h"

#include <dlfcn.h>

namespace kp::bridge {

namespace {

template <typename F>
void find(F& slot, const char* name, std::string& problem) {
    slot = reinterpret_cast<F>(::dlsym(RTLD_DEFAULT, name));
    if (!slot && problem.empty()) problem = std::string("no Python interpreter in this process (") + name + " not found)";
}

PythonApi resolve() {
    PythonApi api;
    std::string& p = api.problem;
    find(api.Py_IsInitialized, "Py_IsInitialized", p);
    find(api.PyGILState_Ensure, "PyGILState_Ensure", p);
    find(api.PyGILState_Release, "PyGILState_Release", p);
    find(api.PyImport_ImportModule, "PyImport_ImportModule", p);
    find(api.PyObject_GetAttrString, "PyObject_GetAttrString", p);
    find(api.PyObject_CallObject, "PyObject_CallObject", p);
    find(api.PyTuple_New, "PyTuple_New", p);
    find(api.PyTuple_SetItem, "PyTuple_SetItem", p);
    find(api.PyLong_FromLongLong, "PyLong_FromLongLong", p);
    find(api.PyLong_FromVoidPtr, "PyLong_FromVoidPtr", p);
    find(api.PyLong_AsLongLong, "PyLong_AsLongLong", p);
    find(api.PyUnicode_FromString, "PyUnicode_FromString", p);
    find(api.PyUnicode_AsUTF8AndSize, "PyUnicode_AsUTF8AndSize", p);
    find(api.PyObject_Str, "PyObject_Str", p);
    find(api.PyErr_Occurred, "PyErr_Occurred", p);
    find(api.PyErr_Fetch, "PyErr_Fetch", p);
    find(api.PyErr_Clear, "PyErr_Clear", p);
    find(api.Py_DecRef, "Py_DecRef", p);
    if (p.empty() && !api.Py_IsInitialized()) p = "the Python interpreter in this process is not initialized";
    if (!p.empty()) p += ": the PyTorch bridge runs only in a worker hosted by Python (kernelpro starts it so for PyTorch tasks)";
    return api;
}

}  // namespace

const PythonApi& python_api() {
    static const PythonApi api = resolve();
    return api;
}

std::string take_python_error() {
    const PythonApi& py = python_api();
    if (!py.PyErr_Occurred()) return "";
    PyObject *type = nullptr, *value = nullptr, *trace = nullptr;
    py.PyErr_Fetch(&type, &value, &trace);
    std::string text = "Python error";
    if (PyObject* s = value ? py.PyObject_Str(value) : nullptr) {
        intptr_t n = 0;
        if (const char* utf8 = py.PyUnicode_AsUTF8AndSize(s, &n)) text = std::string(utf8, static_cast<size_t>(n));
        py.Py_DecRef(s);
    }
    py.PyErr_Clear();
    for (PyObject* o : {type, value, trace})
        if (o) py.Py_DecRef(o);
    return text;
}

}  // namespace kp::bridge
