/* What a side sees (sim/_observer.py, rules §3.3, §9): its OBS message, in its own view.
 *
 * Sets of cells are row bitmasks, as in the reference: a side's vision is one
 * OR per unit, its visible ore one AND with the core's ore rows
 * (core_internal.h says how the core is split).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#include "core_internal.h"

static inline int fits_i32(int64_t v) { return v >= INT32_MIN && v <= INT32_MAX; }

static inline void put_i32(uint8_t *p, int64_t v) {
    uint32_t u = (uint32_t)(int32_t)v;
    p[0] = (uint8_t)u;
    p[1] = (uint8_t)(u >> 8);
    p[2] = (uint8_t)(u >> 16);
    p[3] = (uint8_t)(u >> 24);
}

/* A side's vision as row masks (sim._observer.Observer._vision): Chebyshev squares. */
static void vision(const fc_core *c, int side, uint64_t rows[FC_MAX_SIDE]) {
    memset(rows, 0, sizeof(uint64_t) * FC_MAX_SIDE);
    const fc_side *sd = &c->sides[side];
    for (int32_t k = -1; k < sd->count; k++) {
        int64_t cell = k < 0 ? sd->colony : c->pool[sd->order[k]].cell;
        int64_t r = k < 0 ? c->cfg[FC_COLONY_VISION] : c->cfg[FC_UNIT_VISION];
        int64_t x = cell % c->w, y = cell / c->w;
        int64_t x0 = x - r < 0 ? 0 : x - r, x1 = x + r > c->w - 1 ? c->w - 1 : x + r;
        int64_t y0 = y - r < 0 ? 0 : y - r, y1 = y + r > c->h - 1 ? c->h - 1 : y + r;
        int64_t width = x1 - x0 + 1;
        uint64_t span = (width >= 64 ? ~0ULL : ((1ULL << width) - 1)) << x0;
        for (int64_t yy = y0; yy <= y1; yy++) rows[yy] |= span;
    }
}

/* The OBS message of ``side`` (rules §9): arena.match.encode_obs_for's bytes. */
PyObject *core_observe(fc_core *c, PyObject *const *args, Py_ssize_t nargs) {
    int side;
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "observe(side, last_fuel)");
        return NULL;
    }
    if (side_arg(args[0], &side) < 0) return NULL;
    int overflow = 0;
    long long fuel = PyLong_AsLongLongAndOverflow(args[1], &overflow);
    if (fuel == -1 && PyErr_Occurred()) return NULL;
    if (overflow) fuel = overflow > 0 ? INT32_MAX : INT32_MIN;
    if (fuel > INT32_MAX) fuel = INT32_MAX;
    if (fuel < INT32_MIN) fuel = INT32_MIN;
    const fc_side *me = &c->sides[side], *foe = &c->sides[1 - side];
    uint64_t rows[FC_MAX_SIDE];
    vision(c, side, rows);
    int32_t w = c->w, h = c->h, last = c->n - 1;
    int32_t n_enemy = 0, n_ore = 0;
    for (int32_t k = 0; k < foe->count; k++) {
        int64_t cell = c->pool[foe->order[k]].cell;
        n_enemy += (int32_t)(rows[cell / w] >> (cell % w) & 1);
    }
    for (int32_t y = 0; y < h; y++) n_ore += __builtin_popcountll(rows[y] & c->ore_rows[y]);
    Py_ssize_t size = 64 + 24 * ((Py_ssize_t)me->count + n_enemy) + 12 * (Py_ssize_t)n_ore;
    PyObject *out = PyBytes_FromStringAndSize(NULL, size);
    if (out == NULL) return NULL;
    uint8_t *p = (uint8_t *)PyBytes_AS_STRING(out);
    int64_t foe_colony = foe->colony;
    int64_t enemy_hp = (rows[foe_colony / w] >> (foe_colony % w) & 1) ? foe->colony_hp : -1;
    int64_t head[16] = {c->tick, me->banked, me->energy, me->colony_hp, foe->banked, enemy_hp,
                        me->count, n_enemy, n_ore, fuel, 0, 0, 0, 0, 0, 0};
    int ok = 1;
    for (int i = 0; i < 16; i++) {
        ok &= fits_i32(head[i]);
        put_i32(p, head[i]);
        p += 4;
    }
    for (int pass = 0; pass < 2; pass++) {
        const fc_side *sd = pass ? foe : me;
        for (int32_t k = 0; k < sd->count; k++) {
            const fc_unit *u = &c->pool[sd->order[k]];
            if (pass && !(rows[u->cell / w] >> (u->cell % w) & 1)) continue;
            int64_t cell = side ? last - u->cell : u->cell;
            int64_t v[6] = {u->id, u->kind, cell % w, cell / w, u->hp, u->carry};
            for (int i = 0; i < 6; i++) {
                ok &= fits_i32(v[i]);
                put_i32(p, v[i]);
                p += 4;
            }
        }
    }
    /* The visible ore, row-major in the side's view: side 1 reads ours backwards. */
    for (int32_t i = 0; i < h; i++) {
        int32_t y = side ? h - 1 - i : i;
        uint64_t bits = rows[y] & c->ore_rows[y];
        while (bits) {
            int x;
            if (side) {
                x = 63 - __builtin_clzll(bits);
                bits ^= 1ULL << x;
            } else {
                x = __builtin_ctzll(bits);
                bits &= bits - 1;
            }
            int64_t amount = c->ore[y * w + x];
            ok &= fits_i32(amount);
            put_i32(p, side ? w - 1 - x : x);
            put_i32(p + 4, side ? h - 1 - y : y);
            put_i32(p + 8, amount);
            p += 12;
        }
    }
    if (!ok) {
        Py_DECREF(out);
        PyErr_SetString(PyExc_OverflowError,
                        "a value of the OBS message does not fit its signed 32-bit word");
        return NULL;
    }
    return out;
}
