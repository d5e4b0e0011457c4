// fused_layer_norm_cuda stand-in, built like a prebuilt wheel made with the pre-C++11 libstdc++ ABI.
#include <Python.h>
#include <c10/util/Exception.h>

static PyObject* forward(PyObject*, PyObject* arg) {
  long n = PyLong_AsLong(arg);
  TORCH_CHECK(n > 0, "fused_layer_norm: normalized_shape must be positive, got ", n);
  return PyLong_FromLong(n);
}
static PyMethodDef methods[] = {{"forward", forward, METH_O, "fused layer norm"}, {nullptr, nullptr, 0, nullptr}};
static struct PyModuleDef mod = {PyModuleDef_HEAD_INIT, "fused_layer_norm_cuda", nullptr, -1, methods};
PyMODINIT_FUNC PyInit_fused_layer_norm_cuda(void) { return PyModule_Create(&mod); }
