/* replays._native._frames: a tick's replay frame, as msgpack bytes, from the native core.
 *
 * A second implementation of replays._recorder.FrameEncoder.wire packed by
 * msgpack (use_bin_type=True): the same keys in the same order, each integer in
 * msgpack's smallest form, as msgpack-python writes them. It reads the state
 * of a sim._native._core.Core (sim/_native/core.h) after its step.
 * tests/test_native.py compares its bytes with the reference's, frame by frame.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#include "core.h"

FC_BUILD_MARK

static fc_api *api;

/* ------------------------------------------------------------------ msgpack */

typedef struct {
    uint8_t *data;
    Py_ssize_t len, cap;
} buffer;

static int grow(buffer *b, Py_ssize_t more) {
    if (b->len + more <= b->cap) return 0;
    Py_ssize_t cap = b->cap * 2 > b->len + more ? b->cap * 2 : b->len + more + 256;
    uint8_t *data = PyMem_Realloc(b->data, (size_t)cap);
    if (data == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    b->data = data;
    b->cap = cap;
    return 0;
}

static inline void raw(buffer *b, const void *src, Py_ssize_t n) {
    memcpy(b->data + b->len, src, (size_t)n);
    b->len += n;
}

static inline void byte(buffer *b, uint8_t v) { b->data[b->len++] = v; }

static inline void big(buffer *b, uint64_t v, int bytes) {
    for (int i = bytes - 1; i >= 0; i--) byte(b, (uint8_t)(v >> (8 * i)));
}

/* An integer in its smallest msgpack form (msgpack-python's choice). */
static int pack_int(buffer *b, int64_t v) {
    if (grow(b, 9) < 0) return -1;
    if (v >= 0) {
        if (v < 128)
            byte(b, (uint8_t)v);
        else if (v < 256) {
            byte(b, 0xcc);
            big(b, (uint64_t)v, 1);
        } else if (v < 65536) {
            byte(b, 0xcd);
            big(b, (uint64_t)v, 2);
        } else if (v <= 0xffffffffLL) {
            byte(b, 0xce);
            big(b, (uint64_t)v, 4);
        } else {
            byte(b, 0xcf);
            big(b, (uint64_t)v, 8);
        }
    } else if (v >= -32) {
        byte(b, (uint8_t)(int8_t)v);
    } else if (v >= -128) {
        byte(b, 0xd0);
        big(b, (uint64_t)v, 1);
    } else if (v >= -32768) {
        byte(b, 0xd1);
        big(b, (uint64_t)v, 2);
    } else if (v >= INT32_MIN) {
        byte(b, 0xd2);
        big(b, (uint64_t)v, 4);
    } else {
        byte(b, 0xd3);
        big(b, (uint64_t)v, 8);
    }
    return 0;
}

static int pack_uint(buffer *b, uint64_t v) {
    if (v <= INT64_MAX) return pack_int(b, (int64_t)v);
    if (grow(b, 9) < 0) return -1;
    byte(b, 0xcf);
    big(b, v, 8);
    return 0;
}

static int pack_array(buffer *b, Py_ssize_t n) {
    if (grow(b, 5) < 0) return -1;
    if (n < 16)
        byte(b, (uint8_t)(0x90 | n));
    else if (n < 65536) {
        byte(b, 0xdc);
        big(b, (uint64_t)n, 2);
    } else {
        byte(b, 0xdd);
        big(b, (uint64_t)n, 4);
    }
    return 0;
}

static int pack_bytes(buffer *b, uint8_t tag8, uint8_t fix, const void *src, Py_ssize_t n) {
    /* bin (tag8 0xc4, no fix form) or str (tag8 0xd9, fix 0xa0): 8-, 16- or 32-bit lengths. */
    if (grow(b, n + 5) < 0) return -1;
    if (fix && n < 32)
        byte(b, (uint8_t)(fix | n));
    else if (n < 256) {
        byte(b, tag8);
        big(b, (uint64_t)n, 1);
    } else if (n < 65536) {
        byte(b, (uint8_t)(tag8 + 1));
        big(b, (uint64_t)n, 2);
    } else {
        byte(b, (uint8_t)(tag8 + 2));
        big(b, (uint64_t)n, 4);
    }
    raw(b, src, n);
    return 0;
}

static int key(buffer *b, char k) {
    if (grow(b, 2) < 0) return -1;
    byte(b, 0xa1);
    byte(b, (uint8_t)k);
    return 0;
}

static int pack_pair(buffer *b, int64_t x, int64_t y) {
    return pack_array(b, 2) < 0 || pack_int(b, x) < 0 || pack_int(b, y) < 0 ? -1 : 0;
}

static int pack_flat(buffer *b, const int64_t *v, Py_ssize_t n) {
    if (pack_array(b, n) < 0) return -1;
    for (Py_ssize_t i = 0; i < n; i++)
        if (pack_int(b, v[i]) < 0) return -1;
    return 0;
}

static int pack_note(buffer *b, PyObject *note) {
    if (note == Py_None) {
        if (grow(b, 1) < 0) return -1;
        byte(b, 0xc0);
        return 0;
    }
    if (PyLong_CheckExact(note)) {
        long long v = PyLong_AsLongLong(note);
        if (v == -1 && PyErr_Occurred()) return -1;
        return pack_int(b, v);
    }
    if (PyUnicode_CheckExact(note)) {
        Py_ssize_t n;
        const char *text = PyUnicode_AsUTF8AndSize(note, &n);
        if (text == NULL) return -1;
        return pack_bytes(b, 0xd9, 0xa0, text, n);
    }
    PyErr_SetString(PyExc_TypeError, "a note is a str, an int or None");
    return -1;
}

/* ------------------------------------------------------------------ the encoder */

typedef struct {
    PyObject_HEAD
    fc_core *core;
    int version;
    int64_t keyframe_interval;
    /* Each side's memory size the frames so far leave (version 3's "l"); none before the
     * first frame. */
    int have_memory;
    int64_t memory[2];
    int64_t *prev[2]; /* the previous frame's units per side: id, kind, cell, hp, carry */
    int32_t nprev[2];
    buffer out;
    /* Scratch of the deltas, sized by the cells (a cell holds at most one unit). */
    int32_t *survivors;
    int64_t *changed;
    uint8_t *steps;
} frames;

/* The previous frame's state, for the next deltas: the core's units now. */
static void remember(frames *f) {
    fc_core *c = f->core;
    for (int s = 0; s < 2; s++) {
        fc_side *sd = &c->sides[s];
        int64_t *p = f->prev[s];
        for (int32_t k = 0; k < sd->count; k++, p += 5) {
            const fc_unit *u = &c->pool[sd->order[k]];
            p[0] = u->id;
            p[1] = u->kind;
            p[2] = u->cell;
            p[3] = u->hp;
            p[4] = u->carry;
        }
        f->nprev[s] = sd->count;
    }
}

static void frames_dealloc(frames *f) {
    PyMem_Free(f->prev[0]);
    PyMem_Free(f->prev[1]);
    PyMem_Free(f->out.data);
    PyMem_Free(f->survivors);
    PyMem_Free(f->changed);
    PyMem_Free(f->steps);
    Py_XDECREF((PyObject *)f->core);
    Py_TYPE(f)->tp_free((PyObject *)f);
}

/* Frames(core, version, keyframe_interval) */
static PyObject *frames_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    PyObject *core;
    int version;
    long long interval;
    if (kwds != NULL && PyDict_GET_SIZE(kwds)) {
        PyErr_SetString(PyExc_TypeError, "Frames takes positional arguments only");
        return NULL;
    }
    if (!PyArg_ParseTuple(args, "OiL", &core, &version, &interval)) return NULL;
    if (!PyObject_TypeCheck(core, api->core_type)) {
        PyErr_SetString(PyExc_TypeError, "Frames needs a sim._native._core.Core");
        return NULL;
    }
    if (version < 1 || version > 3 || interval < 1) {
        PyErr_SetString(PyExc_ValueError, "version 1, 2 or 3, and a keyframe interval >= 1");
        return NULL;
    }
    frames *f = (frames *)type->tp_alloc(type, 0);
    if (f == NULL) return NULL;
    Py_INCREF(core);
    f->core = (fc_core *)core;
    f->version = version;
    f->keyframe_interval = interval;
    size_t n = (size_t)f->core->n + 1;
    f->prev[0] = PyMem_Calloc(n * 5, sizeof(int64_t));
    f->prev[1] = PyMem_Calloc(n * 5, sizeof(int64_t));
    f->survivors = PyMem_Calloc(n, sizeof(int32_t));
    f->changed = PyMem_Calloc(n * 3, sizeof(int64_t));
    f->steps = PyMem_Calloc(n, 1);
    if (!f->prev[0] || !f->prev[1] || !f->survivors || !f->changed || !f->steps) {
        Py_DECREF(f);
        return PyErr_NoMemory();
    }
    remember(f);
    return (PyObject *)f;
}

static int64_t side_value(const fc_side *sd, char which) {
    return which == 'k' ? sd->colony_hp : which == 'b' ? sd->banked : sd->energy;
}

/* The unit words' deltas of one side: its "m" bytes and "h" list, from the previous frame. */
static int deltas(frames *f, int s, buffer *moves_out, buffer *changes_out) {
    fc_core *c = f->core;
    const int64_t *then = f->prev[s];
    int32_t nthen = f->nprev[s];
    /* The previous units less this tick's dead of this side, in order. */
    int32_t *survivors = f->survivors;
    int32_t nsurv = 0;
    for (int32_t i = 0; i < nthen; i++) {
        int died = 0;
        for (int32_t d = 0; d < c->n_deaths && !died; d++)
            died = c->ev_deaths[2 * d] == s && c->ev_deaths[2 * d + 1] == then[5 * i];
        if (!died) survivors[nsurv++] = i;
    }
    const fc_side *sd = &c->sides[s];
    int64_t *changed = f->changed;
    Py_ssize_t nchanged = 0;
    uint8_t *steps = f->steps;
    int32_t nsteps = 0;
    for (int32_t k = 0; k < sd->count && k < nsurv; k++) {
        const fc_unit *u = &c->pool[sd->order[k]];
        const int64_t *was = then + 5 * survivors[k];
        int64_t delta = u->cell - was[2];
        uint8_t d;
        if (delta == 0)
            d = 0;
        else if (delta == -c->w)
            d = 1;
        else if (delta == 1)
            d = 2;
        else if (delta == c->w)
            d = 3;
        else if (delta == -1)
            d = 4;
        else {
            PyErr_Format(PyExc_RuntimeError, "unit %lld moved %lld cells in one tick",
                         (long long)u->id, (long long)delta);
            return -1;
        }
        steps[nsteps++] = d;
        if (u->hp != was[3] || u->carry != was[4]) {
            changed[nchanged++] = u->id;
            changed[nchanged++] = u->hp;
            changed[nchanged++] = u->carry;
        }
    }
    if (pack_bytes(moves_out, 0xc4, 0, steps, nsteps) < 0) return -1;
    return pack_flat(changes_out, changed, nchanged);
}

/* The sizes "l" records (version 3), from a tuple of two ints in 0..2^32, into out:
 * 0, or -1 with an exception set. */
static int memory_pair(PyObject *memory, int64_t out[2]) {
    if (!PyTuple_Check(memory) || PyTuple_GET_SIZE(memory) != 2) {
        PyErr_SetString(PyExc_TypeError,
                        "a frame of replay format version 3 records each side's memory:"
                        " memory is a pair of ints");
        return -1;
    }
    for (int s = 0; s < 2; s++) {
        long long v = PyLong_AsLongLong(PyTuple_GET_ITEM(memory, s));
        if (v == -1 && PyErr_Occurred()) return -1;
        if (v < 0 || v > (1LL << 32)) {
            PyErr_Format(PyExc_ValueError, "memory size %lld is outside 0..2^32", v);
            return -1;
        }
        out[s] = v;
    }
    return 0;
}

/* applied(fuel_a, fuel_b, notes=None, memory=None) -> bytes: the frame of the tick the core
 * just stepped; version 3 needs memory, each side's size after the tick's calls. */
static PyObject *frames_applied(frames *f, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs < 2 || nargs > 4) {
        PyErr_SetString(PyExc_TypeError, "applied(fuel_a, fuel_b, notes=None, memory=None)");
        return NULL;
    }
    long long fuel[2];
    for (int s = 0; s < 2; s++) {
        fuel[s] = PyLong_AsLongLong(args[s]);
        if (fuel[s] == -1 && PyErr_Occurred()) return NULL;
    }
    PyObject *notes = nargs >= 3 ? args[2] : Py_None;
    if (notes != Py_None && (!PyTuple_Check(notes) || PyTuple_GET_SIZE(notes) != 2)) {
        PyErr_SetString(PyExc_TypeError, "notes: a pair, or None");
        return NULL;
    }
    fc_core *c = f->core;
    int64_t tick = c->tick - 1;
    int key_frame = tick % f->keyframe_interval == 0;
    /* "l" where replays._format.memory_carried says: at keyframe ticks, and on a change. */
    int64_t memory[2] = {0, 0};
    int carried = 0;
    if (f->version >= 3) {
        if (memory_pair(nargs == 4 ? args[3] : Py_None, memory) < 0) return NULL;
        carried = key_frame || !f->have_memory || memory[0] != f->memory[0] ||
                  memory[1] != f->memory[1];
    }
    buffer *b = &f->out;
    b->len = 0;
    if (grow(b, 1) < 0) return NULL;
    byte(b, (uint8_t)(0x8b + (notes != Py_None) + carried));
    if (key(b, 't') < 0 || pack_int(b, tick) < 0) return NULL;
    if (key(b, 'a') < 0 || pack_array(b, 2) < 0) return NULL;
    for (int s = 0; s < 2; s++) {
        if (pack_array(b, 2 * (Py_ssize_t)c->ntaken[s]) < 0) return NULL;
        for (int32_t i = 0; i < c->ntaken[s]; i++) {
            const fc_record *r = &c->taken[s][i];
            if (pack_int(b, r->id) < 0 || pack_int(b, r->op * 8 + r->arg) < 0) return NULL;
        }
    }
    if (key(b, 'f') < 0 || pack_pair(b, fuel[0], fuel[1]) < 0) return NULL;
    if (carried && (key(b, 'l') < 0 || pack_pair(b, memory[0], memory[1]) < 0)) return NULL;
    if (key_frame) {
        if (key(b, 'u') < 0 || pack_array(b, 2) < 0) return NULL;
        for (int s = 0; s < 2; s++) {
            const fc_side *sd = &c->sides[s];
            if (pack_array(b, 6 * (Py_ssize_t)sd->count) < 0) return NULL;
            for (int32_t k = 0; k < sd->count; k++) {
                const fc_unit *u = &c->pool[sd->order[k]];
                int64_t v[6] = {u->id, u->kind, u->cell % c->w, u->cell / c->w, u->hp, u->carry};
                for (int i = 0; i < 6; i++)
                    if (pack_int(b, v[i]) < 0) return NULL;
            }
        }
        Py_ssize_t cells = 0;
        for (int32_t y = 0; y < c->h; y++) cells += __builtin_popcountll(c->ore_rows[y]);
        if (key(b, 'g') < 0 || pack_array(b, 2 * cells) < 0) return NULL;
        for (int32_t y = 0; y < c->h; y++) {
            uint64_t bits = c->ore_rows[y];
            while (bits) {
                int32_t cell = y * c->w + __builtin_ctzll(bits);
                bits &= bits - 1;
                if (pack_int(b, cell) < 0 || pack_int(b, c->ore[cell]) < 0) return NULL;
            }
        }
    } else {
        buffer moves = {0}, changes = {0};
        int failed = 0;
        for (int s = 0; s < 2 && !failed; s++) failed = deltas(f, s, &moves, &changes) < 0;
        failed = failed || key(b, 'm') < 0 || pack_array(b, 2) < 0 || grow(b, moves.len) < 0;
        if (!failed) raw(b, moves.data, moves.len);
        failed = failed || key(b, 'h') < 0 || pack_array(b, 2) < 0 || grow(b, changes.len) < 0;
        if (!failed) raw(b, changes.data, changes.len);
        PyMem_Free(moves.data);
        PyMem_Free(changes.data);
        if (failed) return NULL;
    }
    const char totals[3] = {'k', 'b', 'e'};
    for (int i = 0; i < 3; i++) {
        if (key(b, totals[i]) < 0) return NULL;
        if (pack_pair(b, side_value(&c->sides[0], totals[i]),
                      side_value(&c->sides[1], totals[i])) < 0)
            return NULL;
    }
    if (key(b, 'o') < 0 || pack_array(b, 2 * (Py_ssize_t)c->n_ore) < 0) return NULL;
    for (int32_t i = 0; i < c->n_ore; i++)
        if (pack_int(b, c->ev_ore[i]) < 0 || pack_int(b, c->ore[c->ev_ore[i]]) < 0) return NULL;
    if (key(b, 'v') < 0 || pack_array(b, 4) < 0) return NULL;
    if (pack_flat(b, c->ev_attacks, 3 * (Py_ssize_t)c->n_attacks) < 0 ||
        pack_flat(b, c->ev_deaths, 2 * (Py_ssize_t)c->n_deaths) < 0 ||
        pack_flat(b, c->ev_spawns, 4 * (Py_ssize_t)c->n_spawns) < 0 ||
        pack_flat(b, c->ev_deposits, 3 * (Py_ssize_t)c->n_deposits) < 0)
        return NULL;
    uint64_t sum = api->checksum(c, f->version == 1 ? 1 : 2); /* version 3 keeps 2's */
    if (PyErr_Occurred()) return NULL;
    if (key(b, 'x') < 0 || pack_uint(b, sum) < 0) return NULL;
    if (notes != Py_None) {
        if (key(b, 'n') < 0 || pack_array(b, 2) < 0) return NULL;
        if (pack_note(b, PyTuple_GET_ITEM(notes, 0)) < 0) return NULL;
        if (pack_note(b, PyTuple_GET_ITEM(notes, 1)) < 0) return NULL;
    }
    remember(f);
    if (f->version >= 3) {
        f->memory[0] = memory[0];
        f->memory[1] = memory[1];
        f->have_memory = 1;
    }
    return PyBytes_FromStringAndSize((const char *)b->data, b->len);
}

/* The sizes the frames so far leave: (A, B), or None (no frame yet, or a version before 3). */
static PyObject *get_memory(frames *f, void *unused) {
    if (!f->have_memory) Py_RETURN_NONE;
    return Py_BuildValue("(LL)", (long long)f->memory[0], (long long)f->memory[1]);
}

static PyGetSetDef frames_getset[] = {
    {"memory", (getter)get_memory, NULL,
     "Each side's memory size the frames so far leave (version 3), or None.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMethodDef frames_methods[] = {
    {"applied", (PyCFunction)(void (*)(void))frames_applied, METH_FASTCALL,
     "applied(fuel_a, fuel_b, notes=None, memory=None) -> bytes: the msgpack frame of the"
     " tick just stepped."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject FramesType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "replays._native._frames.Frames",
    .tp_basicsize = sizeof(frames),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "The frames of one match played on a native core, as msgpack bytes.",
    .tp_new = frames_new,
    .tp_dealloc = (destructor)frames_dealloc,
    .tp_methods = frames_methods,
    .tp_getset = frames_getset,
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "replays._native._frames",
    "A tick's replay frame from the native core (replays._native).", -1, NULL,
};

PyMODINIT_FUNC PyInit__frames(void) {
    api = (fc_api *)PyCapsule_Import(FC_CAPSULE, 0);
    if (api == NULL) return NULL;
    if (strcmp(api->layout, FC_LAYOUT) != 0) {
        PyErr_SetString(PyExc_ImportError,
                        "replays._native._frames and sim._native._core were built from"
                        " different versions of sim/_native/core.h");
        return NULL;
    }
    if (PyType_Ready(&FramesType) < 0) return NULL;
    PyObject *m = PyModule_Create(&module_def);
    if (m == NULL) return NULL;
    Py_INCREF(&FramesType);
    if (PyModule_AddObject(m, "Frames", (PyObject *)&FramesType) < 0) {
        Py_DECREF(&FramesType);
        Py_DECREF(m);
        return NULL;
    }
    if (PyModule_AddStringConstant(m, "SOURCE_HASH", FC_SOURCE_HASH) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
