/* arena.sandbox._native._call: one controller's tick call through wasmtime's C API, in C.
 *
 * A second implementation of the happy path of Controller.tick
 * (arena/sandbox/_controller.py) for modules without foray_note: set the
 * tick's fuel and epoch deadline, write the OBS message into the guest's
 * buffer, call foray_tick (the GIL released, as ctypes releases it, so the
 * epoch ticker thread runs), read the memory's size and check it against its
 * cap, copy the records out and read the fuel left. Every step is the same C function the
 * Python path calls through ctypes, in the same order; this saves ctypes'
 * own cost of each call. Whatever is not the happy path (an error, a trap,
 * memory over its cap) goes back to the Python path, which classifies it.
 *
 * The wasmtime functions and every pointer come from arena/sandbox/_ffi.py
 * (ctypes), which owns the objects they point into; the controller drops this
 * object before it drops them.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

/* What the build is from, findable in the built file's bytes (scripts/build_native.py). */
#if !defined(FC_SOURCE_HASH) || !defined(FC_LAYOUT)
#error "build with scripts/build_native.py, which defines FC_SOURCE_HASH and FC_LAYOUT"
#endif
__attribute__((used)) static const char fc_build_mark[] =
    "FORAY_BUILD=" FC_SOURCE_HASH ":" FC_LAYOUT;

typedef void *(*set_fuel_fn)(void *ctx, uint64_t fuel);
typedef void (*set_deadline_fn)(void *ctx, uint64_t ticks_beyond_current);
typedef void *(*call_fn)(void *ctx, const void *func, void *args_and_results, size_t n,
                         void **trap);
typedef size_t (*memory_size_fn)(const void *ctx, const void *memory);
typedef void *(*get_fuel_fn)(const void *ctx, uint64_t *fuel);

enum { OK, FAULT, MEMORY };

typedef struct {
    PyObject_HEAD
    set_fuel_fn set_fuel;
    set_deadline_fn set_deadline;
    call_fn call;
    memory_size_fn memory_size;
    get_fuel_fn get_fuel;
    void *ctx, *func, *memory;
    int32_t *val; /* the one wasmtime_val_raw_t: its i32 at offset 0 */
    void **trap;
    uint64_t *fuel_left;
    uint8_t *buffer;
    Py_ssize_t buffer_bytes, max_records_in_buffer;
    uint64_t budget, deadline, max_memory;
    /* What the last call that did not succeed left for the Python path. */
    PyObject *error; /* the wasmtime_error_t address, or None */
    /* The memory's size after the last call that returned, as an int made once per size
     * (memory changes seldom; a match records it every tick). */
    PyObject *memory_bytes;
    size_t memory_bytes_of; /* the size memory_bytes holds */
} tick_call;

static void tick_call_dealloc(tick_call *t) {
    Py_XDECREF(t->error);
    Py_XDECREF(t->memory_bytes);
    Py_TYPE(t)->tp_free((PyObject *)t);
}

static int address(PyObject *args, Py_ssize_t i, void **out) {
    PyObject *v = PyTuple_GET_ITEM(args, i);
    void *p = PyLong_AsVoidPtr(v);
    if (p == NULL) {
        if (!PyErr_Occurred()) PyErr_Format(PyExc_ValueError, "argument %zd: a null address", i);
        return -1;
    }
    *out = p;
    return 0;
}

/* TickCall(set_fuel, set_deadline, call, memory_size, get_fuel, ctx, func, val, trap,
 *          memory, fuel_left, buffer, buffer_bytes, max_records_in_buffer, budget,
 *          deadline, max_memory): addresses, then sizes and limits. */
static PyObject *tick_call_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    if ((kwds != NULL && PyDict_GET_SIZE(kwds)) || !PyTuple_Check(args) ||
        PyTuple_GET_SIZE(args) != 17) {
        PyErr_SetString(PyExc_TypeError, "TickCall takes 17 positional arguments");
        return NULL;
    }
    tick_call *t = (tick_call *)type->tp_alloc(type, 0);
    if (t == NULL) return NULL;
    void *fns[5], *ptrs[7];
    for (Py_ssize_t i = 0; i < 5; i++)
        if (address(args, i, &fns[i]) < 0) goto fail;
    for (Py_ssize_t i = 0; i < 7; i++)
        if (address(args, 5 + i, &ptrs[i]) < 0) goto fail;
    t->set_fuel = (set_fuel_fn)fns[0];
    t->set_deadline = (set_deadline_fn)fns[1];
    t->call = (call_fn)fns[2];
    t->memory_size = (memory_size_fn)fns[3];
    t->get_fuel = (get_fuel_fn)fns[4];
    t->ctx = ptrs[0];
    t->func = ptrs[1];
    t->val = ptrs[2];
    t->trap = ptrs[3];
    t->memory = ptrs[4];
    t->fuel_left = ptrs[5];
    t->buffer = ptrs[6];
    t->buffer_bytes = PyLong_AsSsize_t(PyTuple_GET_ITEM(args, 12));
    t->max_records_in_buffer = PyLong_AsSsize_t(PyTuple_GET_ITEM(args, 13));
    t->budget = PyLong_AsUnsignedLongLong(PyTuple_GET_ITEM(args, 14));
    t->deadline = PyLong_AsUnsignedLongLong(PyTuple_GET_ITEM(args, 15));
    t->max_memory = PyLong_AsUnsignedLongLong(PyTuple_GET_ITEM(args, 16));
    if (PyErr_Occurred()) goto fail;
    Py_INCREF(Py_None);
    t->error = Py_None;
    t->memory_bytes = PyLong_FromLong(0);
    if (t->memory_bytes == NULL) goto fail;
    return (PyObject *)t;
fail:
    Py_DECREF(t);
    return NULL;
}

/* call(message, max_records) -> (n, raw, fuel used, memory size), or FAULT (the call's
 * error address in .error, the trap where the controller keeps it), or MEMORY (the size
 * in .memory). */
static PyObject *tick_call_call(tick_call *t, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "call(message, max_records)");
        return NULL;
    }
    Py_buffer message;
    if (PyObject_GetBuffer(args[0], &message, PyBUF_SIMPLE) < 0) return NULL;
    Py_ssize_t max_records = PyLong_AsSsize_t(args[1]);
    if (max_records == -1 && PyErr_Occurred()) {
        PyBuffer_Release(&message);
        return NULL;
    }
    if (message.len > t->buffer_bytes) {
        PyErr_Format(PyExc_ValueError, "OBS message is %zd bytes, over %zd", message.len,
                     t->buffer_bytes);
        PyBuffer_Release(&message);
        return NULL;
    }
    void *err = t->set_fuel(t->ctx, t->budget);
    if (err == NULL) {
        t->set_deadline(t->ctx, t->deadline);
        memcpy(t->buffer, message.buf, (size_t)message.len);
        *t->val = (int32_t)message.len;
        Py_BEGIN_ALLOW_THREADS err = t->call(t->ctx, t->func, t->val, 1, t->trap);
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&message);
    if (err != NULL || *t->trap != NULL) {
        PyObject *e = err != NULL ? PyLong_FromVoidPtr(err) : (Py_INCREF(Py_None), Py_None);
        if (e == NULL) return NULL;
        Py_SETREF(t->error, e);
        return PyLong_FromLong(FAULT);
    }
    size_t memory = t->memory_size(t->ctx, t->memory);
    if (memory != t->memory_bytes_of) {
        PyObject *m = PyLong_FromSize_t(memory);
        if (m == NULL) return NULL;
        Py_SETREF(t->memory_bytes, m);
        t->memory_bytes_of = memory;
    }
    if (memory > t->max_memory) return PyLong_FromLong(MEMORY);
    int32_t n = *t->val;
    Py_ssize_t take = n >= 0 && n <= max_records && n <= t->max_records_in_buffer ? n : 0;
    PyObject *raw = PyBytes_FromStringAndSize((const char *)t->buffer, take * 12);
    if (raw == NULL) return NULL;
    t->get_fuel(t->ctx, t->fuel_left);
    uint64_t used = t->budget - *t->fuel_left;
    return Py_BuildValue("(iNKO)", n, raw, (unsigned long long)used, t->memory_bytes);
}

static PyMethodDef tick_call_methods[] = {
    {"call", (PyCFunction)(void (*)(void))tick_call_call, METH_FASTCALL,
     "call(message, max_records) -> (n, raw, used, memory) | FAULT | MEMORY: one tick's"
     " call."},
    {NULL, NULL, 0, NULL},
};

static PyObject *get_error(tick_call *t, void *unused) { return Py_NewRef(t->error); }

static PyObject *get_memory(tick_call *t, void *unused) { return Py_NewRef(t->memory_bytes); }

static PyGetSetDef tick_call_getset[] = {
    {"error", (getter)get_error, NULL, "The last FAULT's error address, or None.", NULL},
    {"memory", (getter)get_memory, NULL, "The memory size after the last call that returned.",
     NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject TickCallType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "arena.sandbox._native._call.TickCall",
    .tp_basicsize = sizeof(tick_call),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "One controller's foray_tick call through wasmtime's C API.",
    .tp_new = tick_call_new,
    .tp_dealloc = (destructor)tick_call_dealloc,
    .tp_methods = tick_call_methods,
    .tp_getset = tick_call_getset,
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "arena.sandbox._native._call",
    "A controller's tick call in C (arena.sandbox._native).", -1, NULL,
};

PyMODINIT_FUNC PyInit__call(void) {
    if (PyType_Ready(&TickCallType) < 0) return NULL;
    PyObject *m = PyModule_Create(&module_def);
    if (m == NULL) return NULL;
    Py_INCREF(&TickCallType);
    if (PyModule_AddObject(m, "TickCall", (PyObject *)&TickCallType) < 0 ||
        PyModule_AddIntConstant(m, "FAULT", FAULT) < 0 ||
        PyModule_AddIntConstant(m, "MEMORY", MEMORY) < 0 ||
        PyModule_AddStringConstant(m, "SOURCE_HASH", FC_SOURCE_HASH) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
