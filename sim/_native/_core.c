/* sim._native._core: the state, rules, observation and checksum of one match, in C.
 *
 * A second implementation of the pure Python reference (sim/_state.py,
 * sim/_rules.py, sim/_observer.py, sim/_checksum.py, sim.validate_actions),
 * made for the match loop's hot path: the same states, the same observation
 * bytes, the same checksums. Every function follows its Python original step
 * for step, in the same order, so the two can be read side by side;
 * tests/test_native.py plays both on golden and generated games and compares
 * them tick by tick.
 *
 * Pure like sim: no I/O, no clock, no randomness. A core is built from a
 * sim.Game's state (sim._native.native_core), so a scenario set up in Python
 * plays on in C.
 *
 * This file is the module: the Core type's tables, and what the module lends
 * its readers (the capsule of core.h). Each job is a file of its own, as in
 * sim: state.c, rules.c, actions.c, observer.c, checksum.c (core_internal.h).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "core_internal.h"

FC_BUILD_MARK

static PyMethodDef core_methods[] = {
    {"observe", (PyCFunction)(void (*)(void))core_observe, METH_FASTCALL,
     "observe(side, last_fuel) -> bytes: the side's OBS message (rules §9)."},
    {"take", (PyCFunction)(void (*)(void))core_take, METH_FASTCALL,
     "take(side, n, raw) -> bool: keep a reply's records for the step; whether they are valid."},
    {"take_records", (PyCFunction)(void (*)(void))core_take_records, METH_FASTCALL,
     "take_records(side, records) -> bool: the same for (id, op, arg) triples."},
    {"take_packed", (PyCFunction)(void (*)(void))core_take_packed, METH_FASTCALL,
     "take_packed(side, flat) -> bool: the same for a replay's [id, op * 8 + arg, ...]."},
    {"step", (PyCFunction)core_step, METH_NOARGS, "Resolve the tick from the records taken."},
    {"checksum", (PyCFunction)(void (*)(void))core_checksum, METH_FASTCALL,
     "checksum(version=2) -> int: the state's checksum in that replay format version."},
    {"taken", (PyCFunction)core_taken, METH_O, "taken(side): the records kept for the step."},
    {"roster", (PyCFunction)core_roster, METH_O, "roster(side): the living units' ids."},
    {"totals", (PyCFunction)core_totals, METH_O, "totals(side): (colony_hp, banked)."},
    {"state", (PyCFunction)core_state, METH_NOARGS,
     "state() -> (tick, ore, sides): the whole state, for comparing with the reference."},
    {"events", (PyCFunction)core_events, METH_NOARGS,
     "events() -> (attacks, deaths, spawns, deposits, ore_changed) of the last step."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef core_getset[] = {
    {"tick", (getter)core_get_tick, NULL, "The ticks resolved so far.", NULL},
    {"ended", (getter)core_get_ended, NULL, "Whether the match is over (fuel aside).", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject CoreType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "sim._native._core.Core",
    .tp_basicsize = sizeof(fc_core),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "One match's state in C: the rules, the observation and the checksum.",
    .tp_new = core_new,
    .tp_dealloc = (destructor)core_dealloc,
    .tp_methods = core_methods,
    .tp_getset = core_getset,
};

static PyMethodDef module_methods[] = {
    {"blake2b_64", module_blake2b_64, METH_O,
     "blake2b_64(data) -> int: BLAKE2b with an 8-byte digest, as a little-endian integer."},
    {NULL, NULL, 0, NULL},
};

static fc_api api = {FC_LAYOUT, &CoreType, fc_checksum};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "sim._native._core",
    "The native core of a match (sim._native): a second implementation of the rules.", -1,
    module_methods,
};

PyMODINIT_FUNC PyInit__core(void) {
    if (PyType_Ready(&CoreType) < 0) return NULL;
    PyObject *m = PyModule_Create(&module_def);
    if (m == NULL) return NULL;
    Py_INCREF(&CoreType);
    if (PyModule_AddObject(m, "Core", (PyObject *)&CoreType) < 0) {
        Py_DECREF(&CoreType);
        Py_DECREF(m);
        return NULL;
    }
    if (PyModule_AddStringConstant(m, "SOURCE_HASH", FC_SOURCE_HASH) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    PyObject *capsule = PyCapsule_New(&api, FC_CAPSULE, NULL);
    if (capsule == NULL || PyModule_AddObject(m, "_C_API", capsule) < 0) {
        Py_XDECREF(capsule);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
