/* fallback if ext.cpp does not build: the same undefined reference, declared by its mangled name */
#include <Python.h>
extern void _ZN3c106detail14torchCheckFailEPKcS2_jRKSs(const char*, const char*, unsigned, const void*);
static PyObject* forward(PyObject* self, PyObject* arg) {
  long n = PyLong_AsLong(arg);
  if (n <= 0) _ZN3c106detail14torchCheckFailEPKcS2_jRKSs("forward", __FILE__, __LINE__, 0);
  return PyLong_FromLong(n);
}
static PyMethodDef methods[] = {{"forward", forward, METH_O, "fused layer norm"}, {0, 0, 0, 0}};
static struct PyModuleDef mod = {PyModuleDef_HEAD_INIT, "fused_layer_norm_cuda", 0, -1, methods};
PyMODINIT_FUNC PyInit_fused_layer_norm_cuda(void) { return PyModule_Create(&mod); }
