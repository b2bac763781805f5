/* A core's state: built from a sim.Game's state (sim/_state.py), and given back.
 *
 * The layout is core.h's; sim._native.native_core builds the constructor's
 * arguments, and Core.state gives them back in the same shape, so the tests
 * compare a core with the reference state (core_internal.h says how the core is split).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

#include "core_internal.h"

static const int64_t DX[5] = {0, 0, 1, 0, -1};
static const int64_t DY[5] = {0, -1, 0, 1, 0};

/* ------------------------------------------------------------------ building a core */

static void core_free_arrays(fc_core *c) {
    PyMem_Free(c->ore);
    PyMem_Free(c->ore_key);
    PyMem_Free(c->ore_term);
    PyMem_Free(c->blocked);
    for (int d = 0; d < 5; d++) PyMem_Free(c->step[d]);
    for (int s = 0; s < 2; s++) {
        PyMem_Free(c->sides[s].order);
        PyMem_Free(c->taken[s]);
    }
    PyMem_Free(c->pool);
    PyMem_Free(c->occ);
    PyMem_Free(c->free);
    PyMem_Free(c->ev_attacks);
    PyMem_Free(c->ev_deaths);
    PyMem_Free(c->ev_deposits);
    PyMem_Free(c->ev_ore);
    PyMem_Free(c->ore_mark);
    PyMem_Free(c->scratch_a);
    PyMem_Free(c->scratch_b);
    PyMem_Free(c->scratch_c);
    PyMem_Free(c->scratch_d);
    PyMem_Free(c->damage);
}

void core_dealloc(fc_core *c) {
    core_free_arrays(c);
    Py_TYPE(c)->tp_free((PyObject *)c);
}

static int read_i64(PyObject *seq, Py_ssize_t i, int64_t *out) {
    PyObject *item = PySequence_GetItem(seq, i);
    if (item == NULL) return -1;
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(item, &overflow);
    Py_DECREF(item);
    if (v == -1 && PyErr_Occurred()) return -1;
    if (overflow) {
        PyErr_SetString(PyExc_OverflowError, "a state value does not fit 64 bits");
        return -1;
    }
    *out = v;
    return 0;
}

#define ALLOC(ptr, count)                                              \
    do {                                                               \
        (ptr) = PyMem_Calloc((size_t)(count) + 1, sizeof(*(ptr)));     \
        if ((ptr) == NULL) {                                           \
            PyErr_NoMemory();                                          \
            goto fail;                                                 \
        }                                                              \
    } while (0)

/* Core(width, height, rock, config, tick, ore, sides): sides are two tuples
 * (colony, colony_hp, banked, energy, next_id, units), units a sequence of
 * (id, kind, cell, hp, carry) by id. sim._native.native_core builds the arguments. */
PyObject *core_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    int w, h;
    Py_buffer rock;
    PyObject *config, *ore, *sides;
    long long tick;
    if (kwds != NULL && PyDict_GET_SIZE(kwds)) {
        PyErr_SetString(PyExc_TypeError, "Core takes positional arguments only");
        return NULL;
    }
    if (!PyArg_ParseTuple(args, "iiy*OLOO", &w, &h, &rock, &config, &tick, &ore, &sides))
        return NULL;
    fc_core *c = (fc_core *)type->tp_alloc(type, 0);
    if (c == NULL) {
        PyBuffer_Release(&rock);
        return NULL;
    }
    if (w < 1 || h < 1 || w > FC_MAX_SIDE || h > FC_MAX_SIDE || rock.len != (Py_ssize_t)w * h) {
        PyErr_SetString(PyExc_ValueError, "the native core takes maps of 1..64 cells a side");
        goto fail;
    }
    int32_t n = w * h;
    c->w = w;
    c->h = h;
    c->n = n;
    c->tick = tick;
    if (PySequence_Size(config) != FC_CONFIG_FIELDS) {
        PyErr_SetString(PyExc_ValueError, "config: 15 constants expected");
        goto fail;
    }
    for (int i = 0; i < FC_CONFIG_FIELDS; i++)
        if (read_i64(config, i, &c->cfg[i]) < 0) goto fail;
    if (c->cfg[FC_MAX_UNITS] < 1 || c->cfg[FC_MAX_UNITS] > FC_MAX_SIDE) {
        PyErr_SetString(PyExc_ValueError, "max_units must lie in 1..64");
        goto fail;
    }
    ALLOC(c->ore, n);
    ALLOC(c->ore_key, n);
    ALLOC(c->ore_term, n);
    ALLOC(c->blocked, n);
    for (int d = 0; d < 5; d++) ALLOC(c->step[d], n);
    ALLOC(c->pool, n);
    ALLOC(c->occ, n);
    ALLOC(c->free, n);
    ALLOC(c->ev_attacks, 3 * 2 * (FC_MAX_SIDE + 1));
    ALLOC(c->ev_deaths, 2 * 2 * (FC_MAX_SIDE + 1));
    ALLOC(c->ev_deposits, 3 * 2 * (FC_MAX_SIDE + 1));
    ALLOC(c->ev_ore, n);
    ALLOC(c->ore_mark, 2 * n);
    ALLOC(c->scratch_a, n);
    ALLOC(c->scratch_b, n);
    ALLOC(c->scratch_c, n);
    ALLOC(c->scratch_d, n);
    ALLOC(c->damage, n);
    for (int s = 0; s < 2; s++) {
        ALLOC(c->sides[s].order, n);
        ALLOC(c->taken[s], n + 1);
    }
    const uint8_t *rocks = rock.buf;
    if (PySequence_Size(ore) != n) {
        PyErr_SetString(PyExc_ValueError, "ore: one amount per cell expected");
        goto fail;
    }
    for (int32_t i = 0; i < n; i++) {
        c->occ[i] = -1;
        c->scratch_a[i] = -1;
        c->scratch_b[i] = NO_TARGET;
        c->free[i] = n - 1 - i; /* slot 0 is handed out first */
        c->blocked[i] = rocks[i] ? 1 : 0;
        c->ore_key[i] = cell_key(i);
        if (read_i64(ore, i, &c->ore[i]) < 0) goto fail;
        if (c->ore[i] > 0) c->ore_rows[i / w] |= 1ULL << (i % w);
        c->ore_term[i] = ore_term(c->ore_key[i], c->ore[i]);
        c->ore_digest ^= c->ore_term[i];
    }
    c->nfree = n;
    for (int d = 0; d < 5; d++) {
        for (int32_t i = 0; i < n; i++) {
            int64_t x = i % w + DX[d], y = i / w + DY[d];
            c->step[d][i] = (x >= 0 && x < w && y >= 0 && y < h) ? (int32_t)(y * w + x) : -1;
        }
    }
    if (PySequence_Size(sides) != 2) {
        PyErr_SetString(PyExc_ValueError, "sides: two expected");
        goto fail;
    }
    for (int s = 0; s < 2; s++) {
        PyObject *side = PySequence_GetItem(sides, s);
        if (side == NULL) goto fail;
        fc_side *sd = &c->sides[s];
        int64_t *fields[5] = {&sd->colony, &sd->colony_hp, &sd->banked, &sd->energy, &sd->next_id};
        int bad = PySequence_Size(side) != 6;
        for (int i = 0; i < 5 && !bad; i++) bad = read_i64(side, i, fields[i]) < 0;
        if (!bad && (sd->colony < 0 || sd->colony >= n)) {
            PyErr_SetString(PyExc_ValueError, "a colony lies off the map");
            bad = 1;
        }
        if (bad) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "a side: 6 fields expected");
            Py_DECREF(side);
            goto fail;
        }
        c->blocked[sd->colony] = 1;
        PyObject *units = PySequence_GetItem(side, 5);
        Py_DECREF(side);
        if (units == NULL) goto fail;
        Py_ssize_t count = PySequence_Size(units);
        int64_t last_id = 0;
        for (Py_ssize_t k = 0; k < count; k++) {
            PyObject *unit = PySequence_GetItem(units, k);
            int64_t v[5];
            bad = unit == NULL || PySequence_Size(unit) != 5;
            for (int i = 0; i < 5 && !bad; i++) bad = read_i64(unit, i, &v[i]) < 0;
            Py_XDECREF(unit);
            if (!bad && (v[0] <= last_id || v[2] < 0 || v[2] >= n || c->occ[v[2]] >= 0)) {
                PyErr_SetString(PyExc_ValueError, "units: ids ascending, each on its own cell");
                bad = 1;
            }
            if (bad) {
                if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "a unit: 5 fields");
                Py_DECREF(units);
                goto fail;
            }
            last_id = v[0];
            new_unit(c, s, v[0], v[1], (int32_t)v[2], v[3], v[4]);
        }
        Py_DECREF(units);
    }
    for (int s = 0; s < 2; s++) {
        fc_side *sd = &c->sides[s];
        sd->nspawn = 0;
        for (int d = 1; d <= 4; d++) {
            int32_t cell = c->step[TURN[s][d]][sd->colony];
            if (cell >= 0) sd->spawn[sd->nspawn++] = cell;
        }
    }
    PyBuffer_Release(&rock);
    return (PyObject *)c;
fail:
    PyBuffer_Release(&rock);
    Py_DECREF(c);
    return NULL;
}

/* ------------------------------------------------------------------ reading it back */

/* The ids of ``side``'s living units, by id: the roster its records may name. */
PyObject *core_roster(fc_core *c, PyObject *arg) {
    int side;
    if (side_arg(arg, &side) < 0) return NULL;
    const fc_side *sd = &c->sides[side];
    PyObject *out = PyList_New(sd->count);
    if (out == NULL) return NULL;
    for (int32_t k = 0; k < sd->count; k++) {
        PyObject *id = PyLong_FromLongLong(c->pool[sd->order[k]].id);
        if (id == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyList_SET_ITEM(out, k, id);
    }
    return out;
}

/* (colony, colony_hp, banked, energy, next_id, units): the constructor's shape of a side. */
static PyObject *side_tuple(const fc_core *c, int s) {
    const fc_side *sd = &c->sides[s];
    PyObject *units = PyList_New(sd->count);
    if (units == NULL) return NULL;
    for (int32_t k = 0; k < sd->count; k++) {
        const fc_unit *u = &c->pool[sd->order[k]];
        PyObject *t = Py_BuildValue("(LLLLL)", (long long)u->id, (long long)u->kind,
                                    (long long)u->cell, (long long)u->hp, (long long)u->carry);
        if (t == NULL) {
            Py_DECREF(units);
            return NULL;
        }
        PyList_SET_ITEM(units, k, t);
    }
    return Py_BuildValue("(LLLLLN)", (long long)sd->colony, (long long)sd->colony_hp,
                         (long long)sd->banked, (long long)sd->energy, (long long)sd->next_id,
                         units);
}

/* The whole state, in the constructor's terms: (tick, ore, (side 0, side 1)). */
PyObject *core_state(fc_core *c, PyObject *unused) {
    PyObject *ore = PyList_New(c->n);
    if (ore == NULL) return NULL;
    for (int32_t i = 0; i < c->n; i++) {
        PyObject *v = PyLong_FromLongLong(c->ore[i]);
        if (v == NULL) {
            Py_DECREF(ore);
            return NULL;
        }
        PyList_SET_ITEM(ore, i, v);
    }
    PyObject *a = side_tuple(c, 0);
    PyObject *b = a ? side_tuple(c, 1) : NULL;
    if (b == NULL) {
        Py_XDECREF(a);
        Py_DECREF(ore);
        return NULL;
    }
    return Py_BuildValue("(LN(NN))", (long long)c->tick, ore, a, b);
}

/* (colony_hp, banked) of a side: what the end of a match reads. */
PyObject *core_totals(fc_core *c, PyObject *arg) {
    int side;
    if (side_arg(arg, &side) < 0) return NULL;
    return Py_BuildValue("(LL)", (long long)c->sides[side].colony_hp,
                         (long long)c->sides[side].banked);
}

PyObject *core_get_tick(fc_core *c, void *unused) { return PyLong_FromLongLong(c->tick); }
