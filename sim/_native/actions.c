/* Taking a side's reply for the step: sim.validate_actions' verdict, and the records kept.
 *
 * Only the verdict: on a refused reply the caller asks the reference for its
 * message, so every message has one text (core_internal.h says how the core is split).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

#include "core_internal.h"

/* The inclusive arg range of each op (sim.ARG_RANGE). */
static const int64_t ARG_LOW[6] = {0, 1, 1, 0, 0, 1};
static const int64_t ARG_HIGH[6] = {0, 4, 4, 4, 0, 2};

static int32_t find_unit(const fc_core *c, int side, int64_t id) {
    /* The slot of a living unit of ``side`` by id (the order is by id), or -1. */
    const fc_side *sd = &c->sides[side];
    int32_t lo = 0, hi = sd->count - 1;
    while (lo <= hi) {
        int32_t mid = (lo + hi) / 2;
        int64_t got = c->pool[sd->order[mid]].id;
        if (got == id) return sd->order[mid];
        if (got < id)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -1;
}

/* ------------------------------------------------------------------ the verdict */

/* sim.validate_actions' verdict (not its message: the caller asks the reference for
 * that on a fault). Stores the records as the side's for the tick; 1 when valid. */
static int take_begin(fc_core *c, int side, Py_ssize_t n, Py_ssize_t records) {
    c->ntaken[side] = 0;
    c->fresh[side] = 0;
    int64_t max_units = c->cfg[FC_MAX_UNITS];
    if (n < 0 || n > max_units + 1) return 0;
    if (records > c->n + 1) return 0; /* more than the roster and the colony: a repeat */
    return 1;
}

static int take_one(fc_core *c, int side, int64_t id, int64_t op, int64_t arg, int32_t *seen,
                    int *colony_seen) {
    int32_t slot = -1;
    if (id) {
        if (op < FC_NOOP || op > FC_DEPOSIT) return 0;
        slot = find_unit(c, side, id);
        if (slot < 0 || seen[slot]) return 0;
    } else {
        if (op != FC_NOOP && op != FC_SPAWN) return 0;
        if (*colony_seen) return 0;
    }
    if (arg < ARG_LOW[op] || arg > ARG_HIGH[op]) return 0;
    if (id)
        seen[slot] = 1;
    else
        *colony_seen = 1;
    fc_record *r = &c->taken[side][c->ntaken[side]++];
    r->id = id;
    r->op = op;
    r->arg = arg;
    r->slot = slot;
    return 1;
}

static int take_end(fc_core *c, int side, int ok, int32_t *seen) {
    for (int32_t i = 0; i < c->ntaken[side]; i++)
        if (c->taken[side][i].slot >= 0) seen[c->taken[side][i].slot] = 0;
    if (!ok) c->ntaken[side] = 0;
    c->fresh[side] = ok; /* a refused reply is not a side's records for a step */
    return ok;
}

static inline int32_t load_i32(const uint8_t *p) {
    return (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
                     (uint32_t)p[3] << 24);
}

/* ------------------------------------------------------------------ its Python face */

/* take(side, n, raw): a reply's records (raw: n little-endian int32 triples) checked and
 * kept for the step; True when valid. */
PyObject *core_take(fc_core *c, PyObject *const *args, Py_ssize_t nargs) {
    int side;
    Py_buffer raw;
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "take(side, n, raw)");
        return NULL;
    }
    if (side_arg(args[0], &side) < 0) return NULL;
    Py_ssize_t n = PyLong_AsSsize_t(args[1]);
    if (n == -1 && PyErr_Occurred()) return NULL;
    if (PyObject_GetBuffer(args[2], &raw, PyBUF_SIMPLE) < 0) return NULL;
    if (raw.len % 12) {
        PyBuffer_Release(&raw);
        PyErr_SetString(PyExc_ValueError, "raw records: a multiple of 12 bytes expected");
        return NULL;
    }
    Py_ssize_t records = raw.len / 12;
    int ok = take_begin(c, side, n, records);
    int colony_seen = 0;
    const uint8_t *p = raw.buf;
    for (Py_ssize_t i = 0; i < records && ok; i++, p += 12)
        ok = take_one(c, side, load_i32(p), load_i32(p + 4), load_i32(p + 8), c->scratch_c,
                      &colony_seen);
    PyBuffer_Release(&raw);
    return PyBool_FromLong(take_end(c, side, ok, c->scratch_c));
}

/* take_records(side, records): the same for (id, op, arg) triples, or for a flat
 * [id, op * 8 + arg, ...] list when packed (a replay's applied records). */
static PyObject *take_sequence(fc_core *c, PyObject *const *args, Py_ssize_t nargs, int packed) {
    int side;
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "take_records(side, records)");
        return NULL;
    }
    if (side_arg(args[0], &side) < 0) return NULL;
    PyObject *seq = PySequence_Fast(args[1], "records must be a sequence");
    if (seq == NULL) return NULL;
    Py_ssize_t len = PySequence_Fast_GET_SIZE(seq);
    PyObject **items = PySequence_Fast_ITEMS(seq);
    Py_ssize_t count = packed ? len / 2 : len;
    int ok = (!packed || len % 2 == 0) && take_begin(c, side, count, count);
    int colony_seen = 0;
    for (Py_ssize_t i = 0; i < count && ok; i++) {
        int64_t v[3];
        int overflow = 0;
        if (packed) {
            PyObject *a = items[2 * i], *b = items[2 * i + 1];
            if (!PyLong_CheckExact(a) || !PyLong_CheckExact(b)) {
                ok = 0;
                break;
            }
            v[0] = PyLong_AsLongLongAndOverflow(a, &overflow);
            int64_t packed_op = overflow ? 0 : PyLong_AsLongLongAndOverflow(b, &overflow);
            v[1] = packed_op >> 3;
            v[2] = packed_op & 7;
        } else {
            PyObject *r = items[i];
            if (!PyTuple_Check(r) || PyTuple_GET_SIZE(r) != 3) {
                ok = 0;
                break;
            }
            for (int k = 0; k < 3 && !overflow; k++) {
                PyObject *x = PyTuple_GET_ITEM(r, k);
                if (!PyLong_Check(x)) {
                    overflow = 1;
                    break;
                }
                v[k] = PyLong_AsLongLongAndOverflow(x, &overflow);
            }
        }
        if (PyErr_Occurred()) {
            Py_DECREF(seq);
            return NULL;
        }
        ok = !overflow && take_one(c, side, v[0], v[1], v[2], c->scratch_c, &colony_seen);
    }
    Py_DECREF(seq);
    return PyBool_FromLong(take_end(c, side, ok, c->scratch_c));
}

PyObject *core_take_records(fc_core *c, PyObject *const *args, Py_ssize_t nargs) {
    return take_sequence(c, args, nargs, 0);
}

PyObject *core_take_packed(fc_core *c, PyObject *const *args, Py_ssize_t nargs) {
    return take_sequence(c, args, nargs, 1);
}

static PyObject *records_list(const fc_core *c, int side) {
    PyObject *out = PyList_New(c->ntaken[side]);
    if (out == NULL) return NULL;
    for (int32_t i = 0; i < c->ntaken[side]; i++) {
        const fc_record *r = &c->taken[side][i];
        PyObject *t = Py_BuildValue("(LLL)", (long long)r->id, (long long)r->op, (long long)r->arg);
        if (t == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyList_SET_ITEM(out, i, t);
    }
    return out;
}

/* The records taken for ``side`` this tick (none after a refused reply). */
PyObject *core_taken(fc_core *c, PyObject *arg) {
    int side;
    if (side_arg(arg, &side) < 0) return NULL;
    return records_list(c, side);
}
