/* What the native core's own C files share; its readers (the frame encoder) see only core.h.
 *
 * The core is split as the pure reference is: rules.c is sim/_rules.py (the
 * step), observer.c sim/_observer.py (what a side sees), checksum.c
 * sim/_checksum.py, actions.c sim.validate_actions (taking a reply), state.c
 * loading a state and giving it back (sim/_state.py), and _core.c the module
 * that puts the Core type together. Each file defines the Python-facing
 * functions of its job; _core.c lists them in the type's tables.
 *
 * The helpers more than one file calls on a hot path are static inline here,
 * so no file boundary costs a call: a call between files is made once per
 * Python call (docs/decisions.md, "The native core").
 */
#ifndef FORAY_CORE_INTERNAL_H
#define FORAY_CORE_INTERNAL_H

#include "core.h"

/* Per side, each of its directions in absolute terms (sim._actions._TURN). */
static const int TURN[2][5] = {{0, 1, 2, 3, 4}, {0, 3, 4, 1, 2}};

/* A move's target in the scratch of a step: not a mover (state.c sets it at rest). */
#define NO_TARGET (-2)

/* ------------------------------------------------------------------ the ore digest */

static inline uint64_t mix64(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static inline uint64_t cell_key(int64_t cell) {
    return mix64((uint64_t)(cell + 1) * 0x9E3779B97F4A7C15ULL);
}

static inline uint64_t ore_term(uint64_t key, int64_t amount) {
    return amount ? mix64(key ^ (uint64_t)amount) : 0;
}

/* ------------------------------------------------------------------ units */

static inline int32_t new_unit(fc_core *c, int side, int64_t id, int64_t kind, int32_t cell,
                               int64_t hp, int64_t carry) {
    int32_t slot = c->free[--c->nfree];
    fc_unit *u = &c->pool[slot];
    u->side = side;
    u->id = id;
    u->kind = kind;
    u->cell = cell;
    u->hp = hp;
    u->carry = carry;
    fc_side *sd = &c->sides[side];
    sd->order[sd->count++] = slot;
    c->occ[cell] = slot;
    return slot;
}

/* ------------------------------------------------------------------ arguments */

static inline int side_arg(PyObject *arg, int *side) {
    long v = PyLong_AsLong(arg);
    if (v == -1 && PyErr_Occurred()) return -1;
    if (v != 0 && v != 1) {
        PyErr_SetString(PyExc_ValueError, "side must be 0 or 1");
        return -1;
    }
    *side = (int)v;
    return 0;
}

/* ------------------------------------------------------------------ between the files */

/* Hidden: the extension exports PyInit__core only, whatever flags build it. */
#pragma GCC visibility push(hidden)

/* state.c */
PyObject *core_new(PyTypeObject *type, PyObject *args, PyObject *kwds);
void core_dealloc(fc_core *c);
PyObject *core_state(fc_core *c, PyObject *unused);
PyObject *core_roster(fc_core *c, PyObject *arg);
PyObject *core_totals(fc_core *c, PyObject *arg);
PyObject *core_get_tick(fc_core *c, void *unused);

/* rules.c */
PyObject *core_step(fc_core *c, PyObject *unused);
PyObject *core_events(fc_core *c, PyObject *unused);
PyObject *core_get_ended(fc_core *c, void *unused);

/* actions.c */
PyObject *core_take(fc_core *c, PyObject *const *args, Py_ssize_t nargs);
PyObject *core_take_records(fc_core *c, PyObject *const *args, Py_ssize_t nargs);
PyObject *core_take_packed(fc_core *c, PyObject *const *args, Py_ssize_t nargs);
PyObject *core_taken(fc_core *c, PyObject *arg);

/* observer.c */
PyObject *core_observe(fc_core *c, PyObject *const *args, Py_ssize_t nargs);

/* checksum.c */
uint64_t fc_checksum(fc_core *c, int version);
PyObject *core_checksum(fc_core *c, PyObject *const *args, Py_ssize_t nargs);
PyObject *module_blake2b_64(PyObject *module, PyObject *arg);

#pragma GCC visibility pop

#endif
