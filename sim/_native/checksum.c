/* The checksum of a core's state (sim/_checksum.py): 64 bits, the same on every machine.
 *
 * BLAKE2b (blake2b.h) over the same little-endian words as the reference, of
 * replay format version 2 (the ore digest the state keeps) or 1 (every cell's
 * ore). The frame encoder calls fc_checksum through the core's capsule
 * (core_internal.h says how the core is split).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "blake2b.h"
#include "core_internal.h"

/* The checksum of replay format ``version`` (sim._checksum.checksum, checksum_v1). */
uint64_t fc_checksum(fc_core *c, int version) {
    Py_ssize_t words = 1;
    for (int s = 0; s < 2; s++) words += 5 + 5 * (Py_ssize_t)c->sides[s].count;
    words += version == 1 ? c->n : 1;
    uint8_t stack[8 * 1024];
    uint8_t *buf = (size_t)words * 8 <= sizeof stack ? stack : PyMem_Malloc((size_t)words * 8);
    if (buf == NULL) return 0; /* out of memory: the caller checks PyErr */
    uint8_t *p = buf;
#define PUT64(v)                                                          \
    do {                                                                  \
        uint64_t u_ = (uint64_t)(v);                                      \
        for (int b_ = 0; b_ < 8; b_++) *p++ = (uint8_t)(u_ >> (8 * b_)); \
    } while (0)
    PUT64(c->tick);
    for (int s = 0; s < 2; s++) {
        const fc_side *sd = &c->sides[s];
        PUT64(sd->banked);
        PUT64(sd->energy);
        PUT64(sd->colony_hp);
        PUT64(sd->next_id);
        PUT64(sd->count);
        for (int32_t k = 0; k < sd->count; k++) {
            const fc_unit *u = &c->pool[sd->order[k]];
            PUT64(u->id);
            PUT64(u->kind);
            PUT64(u->cell);
            PUT64(u->hp);
            PUT64(u->carry);
        }
    }
    if (version == 1) {
        for (int32_t i = 0; i < c->n; i++) PUT64(c->ore[i]);
    } else {
        PUT64(c->ore_digest);
    }
#undef PUT64
    uint64_t digest = fc_blake2b_64(buf, (size_t)(p - buf));
    if (buf != stack) PyMem_Free(buf);
    return digest;
}

PyObject *core_checksum(fc_core *c, PyObject *const *args, Py_ssize_t nargs) {
    long version = 2;
    if (nargs > 1) {
        PyErr_SetString(PyExc_TypeError, "checksum(version=2)");
        return NULL;
    }
    if (nargs == 1) {
        version = PyLong_AsLong(args[0]);
        if (version == -1 && PyErr_Occurred()) return NULL;
    }
    if (version != 1 && version != 2) {
        PyErr_SetString(PyExc_ValueError, "checksum version must be 1 or 2");
        return NULL;
    }
    uint64_t digest = fc_checksum(c, (int)version);
    if (PyErr_Occurred()) return NULL;
    return PyLong_FromUnsignedLongLong(digest);
}

/* blake2b_64(data): the checksum's hash of any bytes (the tests hold it to hashlib's). */
PyObject *module_blake2b_64(PyObject *module, PyObject *arg) {
    Py_buffer data;
    if (PyObject_GetBuffer(arg, &data, PyBUF_SIMPLE) < 0) return NULL;
    uint64_t digest = fc_blake2b_64(data.buf, (size_t)data.len);
    PyBuffer_Release(&data);
    return PyLong_FromUnsignedLongLong(digest);
}
