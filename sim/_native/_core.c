/* sim._native._core: the state, rules, observation and checksum of one match, in C.
 *
 * A second implementation of the pure Python reference (sim/_state.py,
 * sim/_rules.py, sim/_observer.py, sim/_checksum.py, sim.validate_actions),
 * made for the match loop's hot path: the same states, the same observation
 * bytes, the same checksums. Every function here follows its Python original
 * step for step, in the same order, so the two can be read side by side;
 * tests/test_native.py plays both on golden and generated games and compares
 * them tick by tick.
 *
 * Pure like sim: no I/O, no clock, no randomness. A core is built from a
 * sim.Game's state (sim._native.core_of), so a scenario set up in Python
 * plays on in C.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "blake2b.h"
#include "core.h"

FC_BUILD_MARK

static const int64_t DX[5] = {0, 0, 1, 0, -1};
static const int64_t DY[5] = {0, -1, 0, 1, 0};
/* Per side, each of its directions in absolute terms (sim._actions._TURN). */
static const int TURN[2][5] = {{0, 1, 2, 3, 4}, {0, 3, 4, 1, 2}};
/* The inclusive arg range of each op (sim.ARG_RANGE). */
static const int64_t ARG_LOW[6] = {0, 1, 1, 0, 0, 1};
static const int64_t ARG_HIGH[6] = {0, 4, 4, 4, 0, 2};

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

/* State._add_ore: the amount, the digest and the row bits in step. */
static void add_ore(fc_core *c, int32_t cell, int64_t amount) {
    int64_t old = c->ore[cell];
    int64_t now = old + amount;
    c->ore[cell] = now;
    uint64_t term = ore_term(c->ore_key[cell], now);
    c->ore_digest ^= c->ore_term[cell] ^ term;
    c->ore_term[cell] = term;
    if ((old > 0) != (now > 0)) c->ore_rows[cell / c->w] ^= 1ULL << (cell % c->w);
}

/* ------------------------------------------------------------------ units */

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

static int32_t new_unit(fc_core *c, int side, int64_t id, int64_t kind, int32_t cell, int64_t hp,
                        int64_t carry) {
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

static void drop_unit(fc_core *c, int32_t slot) {
    fc_unit *u = &c->pool[slot];
    fc_side *sd = &c->sides[u->side];
    for (int32_t i = 0; i < sd->count; i++) {
        if (sd->order[i] == slot) {
            memmove(sd->order + i, sd->order + i + 1, sizeof(int32_t) * (sd->count - i - 1));
            sd->count--;
            break;
        }
    }
}

/* State._spawn: the first free colony neighbour takes the unit; its id, or 0. */
static int64_t spawn(fc_core *c, int s, int64_t kind) {
    fc_side *sd = &c->sides[s];
    for (int i = 0; i < sd->nspawn; i++) {
        int32_t cell = sd->spawn[i];
        if (!c->blocked[cell] && c->occ[cell] < 0) {
            int64_t id = sd->next_id++;
            int64_t hp = kind == FC_WORKER ? c->cfg[FC_WORKER_HP] : c->cfg[FC_SOLDIER_HP];
            new_unit(c, s, id, kind, cell, hp, 0);
            return id;
        }
    }
    return 0;
}

/* ------------------------------------------------------------------ the rules */

static void ore_changed(fc_core *c, int32_t cell) {
    if (!c->ore_mark[cell]) {
        c->ore_mark[cell] = 1;
        c->ev_ore[c->n_ore++] = cell;
    }
}

static int cmp_i32(const void *a, const void *b) {
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

typedef struct {
    int32_t slot, target;
} wish;

/* sim._rules._attack: damage summed and applied at once; the dead marked in ``dead``. */
static void attack(fc_core *c, const wish *attacks, int32_t n, uint8_t *dead) {
    int32_t victims[2 * (FC_MAX_SIDE + 2)];
    int32_t *seen = c->scratch_d; /* per slot: listed among the victims (rests at 0) */
    int32_t nv = 0;
    int64_t colony_damage[2] = {0, 0};
    int64_t power = c->cfg[FC_SOLDIER_ATTACK];
    for (int32_t i = 0; i < n; i++) {
        int32_t target = attacks[i].target;
        if (target < 0) continue;
        fc_unit *u = &c->pool[attacks[i].slot];
        int64_t *ev = c->ev_attacks + 3 * c->n_attacks++;
        ev[0] = u->side;
        ev[1] = u->id;
        ev[2] = target;
        int32_t v = c->occ[target];
        if (v >= 0 && c->pool[v].side != u->side) {
            if (!seen[v]) {
                seen[v] = 1;
                c->damage[v] = 0;
                victims[nv++] = v;
            }
            c->damage[v] += power;
        } else if (target == c->sides[1 - u->side].colony) {
            colony_damage[1 - u->side] += power;
        }
    }
    /* Deaths, by (side, id): drop what they carry on their cell. */
    int32_t died[2 * (FC_MAX_SIDE + 2)];
    int32_t nd = 0;
    for (int32_t i = 0; i < nv; i++) {
        int32_t v = victims[i];
        seen[v] = 0;
        c->pool[v].hp -= c->damage[v];
        if (c->pool[v].hp <= 0) died[nd++] = v;
    }
    for (int32_t i = 1; i < nd; i++) { /* insertion sort by (side, id): a handful */
        int32_t v = died[i];
        int32_t j = i - 1;
        while (j >= 0 && (c->pool[died[j]].side > c->pool[v].side ||
                          (c->pool[died[j]].side == c->pool[v].side &&
                           c->pool[died[j]].id > c->pool[v].id))) {
            died[j + 1] = died[j];
            j--;
        }
        died[j + 1] = v;
    }
    for (int32_t i = 0; i < nd; i++) {
        int32_t v = died[i];
        fc_unit *u = &c->pool[v];
        dead[v] = 1;
        int64_t *ev = c->ev_deaths + 2 * c->n_deaths++;
        ev[0] = u->side;
        ev[1] = u->id;
        drop_unit(c, v);
        c->occ[u->cell] = -1;
        if (u->carry) {
            add_ore(c, (int32_t)u->cell, u->carry);
            ore_changed(c, (int32_t)u->cell);
        }
    }
    for (int s = 0; s < 2; s++) {
        if (colony_damage[s]) {
            int64_t hp = c->sides[s].colony_hp - colony_damage[s];
            c->sides[s].colony_hp = hp > 0 ? hp : 0;
        }
    }
}

#define NO_TARGET (-2)

/* sim._rules._move: simultaneous moves to the greatest fixed point. */
static void move(fc_core *c, const wish *wishes, int32_t n) {
    if (!n) return;
    int32_t *aimed_at = c->scratch_a; /* per cell: the mover aiming at it, or -1 */
    int32_t *target = c->scratch_b;   /* per slot: its target, or NO_TARGET (not a mover) */
    int32_t contested[FC_MAX_SIDE * 4 + 8];
    int32_t into[2 * (FC_MAX_SIDE * 4 + 8)];
    int32_t failed[4 * (FC_MAX_SIDE * 4 + 8)];
    int32_t nc = 0, ni = 0, nf = 0;
    for (int32_t i = 0; i < n; i++) {
        int32_t u = wishes[i].slot, t = wishes[i].target;
        if (t < 0 || c->blocked[t]) {
            failed[nf++] = u;
        } else if (aimed_at[t] >= 0) {
            contested[nc++] = t;
            failed[nf++] = u;
        } else {
            aimed_at[t] = u;
            target[u] = t;
            int32_t v = c->occ[t];
            if (v >= 0) {
                into[2 * ni] = u;
                into[2 * ni + 1] = v;
                ni++;
            }
        }
    }
    for (int32_t i = 0; i < nc; i++) {
        int32_t loser = aimed_at[contested[i]];
        if (loser >= 0) {
            aimed_at[contested[i]] = -1;
            target[loser] = NO_TARGET;
            failed[nf++] = loser;
        }
    }
    for (int32_t i = 0; i < ni; i++) {
        int32_t u = into[2 * i], v = into[2 * i + 1];
        int32_t vt = target[v];
        if (vt == NO_TARGET || vt == c->pool[u].cell) failed[nf++] = u; /* a stayer, or a swap */
    }
    while (nf) {
        int32_t u = failed[--nf];
        target[u] = NO_TARGET;
        int32_t w = aimed_at[c->pool[u].cell];
        if (w >= 0 && target[w] != NO_TARGET) failed[nf++] = w;
    }
    for (int32_t i = 0; i < n; i++) {
        int32_t u = wishes[i].slot;
        int32_t t = target[u];
        if (t == NO_TARGET) continue;
        fc_unit *unit = &c->pool[u];
        if (c->occ[unit->cell] == u) c->occ[unit->cell] = -1;
        unit->cell = t;
        c->occ[t] = u;
    }
    for (int32_t i = 0; i < n; i++) { /* the scratch back to its resting state */
        target[wishes[i].slot] = NO_TARGET;
        if (wishes[i].target >= 0) aimed_at[wishes[i].target] = -1;
    }
}

/* sim._rules.step, on the records taken for both sides. */
static void step(fc_core *c) {
    enum { CAP = 2 * (FC_MAX_SIDE * 2 + 4) };
    wish attacks[CAP], moves[CAP], mines[CAP];
    int32_t deposits[CAP];
    int32_t na = 0, nm = 0, nmine = 0, ndep = 0;
    int64_t spawn_kind[2] = {0, 0};
    c->n_attacks = c->n_deaths = c->n_spawns = c->n_deposits = c->n_ore = 0;
    for (int s = 0; s < 2; s++) {
        const int *turn = TURN[s];
        for (int32_t i = 0; i < c->ntaken[s]; i++) {
            const fc_record *r = &c->taken[s][i];
            if (r->id == 0) {
                if (r->op == FC_SPAWN) spawn_kind[s] = r->arg;
                continue;
            }
            fc_unit *u = &c->pool[r->slot];
            switch (r->op) {
                case FC_MOVE:
                    moves[nm].slot = r->slot;
                    moves[nm++].target = c->step[turn[r->arg]][u->cell];
                    break;
                case FC_ATTACK:
                    if (u->kind == FC_SOLDIER) {
                        attacks[na].slot = r->slot;
                        attacks[na++].target = c->step[turn[r->arg]][u->cell];
                    }
                    break;
                case FC_MINE:
                    if (u->kind == FC_WORKER) {
                        mines[nmine].slot = r->slot;
                        mines[nmine++].target = turn[r->arg]; /* the direction, for now */
                    }
                    break;
                case FC_DEPOSIT:
                    if (u->kind == FC_WORKER) deposits[ndep++] = r->slot;
                    break;
                default:
                    break;
            }
        }
    }
    /* 2-3. Attack and deaths. */
    uint8_t *dead = c->ore_mark + c->n; /* per slot, past the cells' marks */
    int any_dead = 0;
    if (na) {
        attack(c, attacks, na, dead);
        any_dead = c->n_deaths > 0;
        if (any_dead) {
            int32_t k = 0;
            for (int32_t i = 0; i < nm; i++)
                if (!dead[moves[i].slot]) moves[k++] = moves[i];
            nm = k;
            k = 0;
            for (int32_t i = 0; i < nmine; i++)
                if (!dead[mines[i].slot]) mines[k++] = mines[i];
            nmine = k;
            k = 0;
            for (int32_t i = 0; i < ndep; i++)
                if (!dead[deposits[i]]) deposits[k++] = deposits[i];
            ndep = k;
        }
    }
    /* 4. Move. */
    move(c, moves, nm);
    /* 5. Mine, from the cells after the moves: a cell serves all its requests or none.
     * Requests are grouped by target in the order each target was first asked for. */
    int64_t cap = c->cfg[FC_CARRY_CAP];
    int32_t want[CAP];
    for (int32_t i = 0; i < nmine; i++) {
        fc_unit *u = &c->pool[mines[i].slot];
        want[i] = -1;
        if (u->carry < cap) {
            int32_t t = c->step[mines[i].target][u->cell];
            if (t >= 0 && c->ore[t] > 0) want[i] = t;
        }
    }
    for (int32_t i = 0; i < nmine; i++) {
        int32_t t = want[i];
        if (t < 0) continue;
        int64_t count = 0;
        for (int32_t j = i; j < nmine; j++) count += want[j] == t;
        int serve = c->ore[t] >= count;
        if (serve) {
            add_ore(c, t, -count);
            ore_changed(c, t);
        }
        for (int32_t j = i; j < nmine; j++) {
            if (want[j] == t) {
                if (serve) c->pool[mines[j].slot].carry += 1;
                if (j > i) want[j] = -1;
            }
        }
    }
    /* 6. Deposit. */
    for (int32_t i = 0; i < ndep; i++) {
        fc_unit *u = &c->pool[deposits[i]];
        if (!u->carry) continue;
        fc_side *sd = &c->sides[u->side];
        if (sd->colony_hp <= 0) continue;
        int adjacent = 0;
        for (int k = 0; k < sd->nspawn; k++) adjacent |= sd->spawn[k] == u->cell;
        if (!adjacent) continue;
        sd->banked += u->carry;
        sd->energy += u->carry;
        int64_t *ev = c->ev_deposits + 3 * c->n_deposits++;
        ev[0] = u->side;
        ev[1] = u->id;
        ev[2] = u->carry;
        u->carry = 0;
    }
    /* 7. Spawn: paid for only when a free cell next to the colony takes the unit. */
    for (int s = 0; s < 2; s++) {
        int64_t kind = spawn_kind[s];
        if (!kind) continue;
        fc_side *sd = &c->sides[s];
        int64_t cost = kind == FC_WORKER ? c->cfg[FC_WORKER_COST] : c->cfg[FC_SOLDIER_COST];
        if (sd->colony_hp > 0 && sd->energy >= cost && sd->count < c->cfg[FC_MAX_UNITS]) {
            int64_t id = spawn(c, s, kind);
            if (id) {
                sd->energy -= cost;
                int64_t *ev = c->ev_spawns + 4 * c->n_spawns++;
                ev[0] = s;
                ev[1] = id;
                ev[2] = kind;
                ev[3] = c->pool[sd->order[sd->count - 1]].cell;
            }
        }
    }
    /* The dead's slots are free again only now: the lists above named them. */
    if (any_dead) {
        for (int32_t i = 0; i < c->n; i++) {
            if (dead[i]) {
                dead[i] = 0;
                c->free[c->nfree++] = i;
            }
        }
    }
    qsort(c->ev_ore, (size_t)c->n_ore, sizeof(int32_t), cmp_i32);
    for (int32_t i = 0; i < c->n_ore; i++) c->ore_mark[c->ev_ore[i]] = 0;
    c->tick += 1;
}

/* ------------------------------------------------------------------ taking a reply */

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

/* ------------------------------------------------------------------ the Python type */

static PyTypeObject CoreType;

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

static void core_dealloc(fc_core *c) {
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
 * (id, kind, cell, hp, carry) by id. sim._native.core_of builds the arguments. */
static PyObject *core_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
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

static int side_arg(PyObject *arg, int *side) {
    long v = PyLong_AsLong(arg);
    if (v == -1 && PyErr_Occurred()) return -1;
    if (v != 0 && v != 1) {
        PyErr_SetString(PyExc_ValueError, "side must be 0 or 1");
        return -1;
    }
    *side = (int)v;
    return 0;
}

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
static PyObject *core_observe(fc_core *c, PyObject *const *args, Py_ssize_t nargs) {
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

/* take(side, n, raw): a reply's records (raw: n little-endian int32 triples) checked and
 * kept for the step; True when valid. */
static PyObject *core_take(fc_core *c, PyObject *const *args, Py_ssize_t nargs) {
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

static PyObject *core_take_records(fc_core *c, PyObject *const *args, Py_ssize_t nargs) {
    return take_sequence(c, args, nargs, 0);
}

static PyObject *core_take_packed(fc_core *c, PyObject *const *args, Py_ssize_t nargs) {
    return take_sequence(c, args, nargs, 1);
}

static PyObject *core_step(fc_core *c, PyObject *unused) {
    if (!c->fresh[0] || !c->fresh[1]) {
        PyErr_SetString(PyExc_RuntimeError, "step: take both sides' records first");
        return NULL;
    }
    step(c);
    c->fresh[0] = c->fresh[1] = 0; /* the records stay, for the tick's frame */
    Py_RETURN_NONE;
}

/* The checksum of replay format ``version`` (sim._checksum.checksum, checksum_v1). */
static uint64_t checksum(fc_core *c, int version) {
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

static PyObject *core_checksum(fc_core *c, PyObject *const *args, Py_ssize_t nargs) {
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
    uint64_t digest = checksum(c, (int)version);
    if (PyErr_Occurred()) return NULL;
    return PyLong_FromUnsignedLongLong(digest);
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
static PyObject *core_taken(fc_core *c, PyObject *arg) {
    int side;
    if (side_arg(arg, &side) < 0) return NULL;
    return records_list(c, side);
}

/* The ids of ``side``'s living units, by id: the roster its records may name. */
static PyObject *core_roster(fc_core *c, PyObject *arg) {
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
static PyObject *core_state(fc_core *c, PyObject *unused) {
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
static PyObject *core_totals(fc_core *c, PyObject *arg) {
    int side;
    if (side_arg(arg, &side) < 0) return NULL;
    return Py_BuildValue("(LL)", (long long)c->sides[side].colony_hp,
                         (long long)c->sides[side].banked);
}

/* The last step's events (sim.TickEvents' attacks, deaths, spawns, deposits, ore_changed). */
static PyObject *core_events(fc_core *c, PyObject *unused) {
    PyObject *lists[5];
    const int64_t *src[4] = {c->ev_attacks, c->ev_deaths, c->ev_spawns, c->ev_deposits};
    const int32_t counts[4] = {c->n_attacks, c->n_deaths, c->n_spawns, c->n_deposits};
    const int widths[4] = {3, 2, 4, 3};
    for (int e = 0; e < 4; e++) {
        lists[e] = PyList_New(counts[e]);
        for (int32_t i = 0; lists[e] != NULL && i < counts[e]; i++) {
            PyObject *t = PyTuple_New(widths[e]);
            for (int k = 0; t != NULL && k < widths[e]; k++)
                PyTuple_SET_ITEM(t, k, PyLong_FromLongLong(src[e][widths[e] * i + k]));
            PyList_SET_ITEM(lists[e], i, t);
        }
    }
    lists[4] = PyList_New(c->n_ore);
    for (int32_t i = 0; lists[4] != NULL && i < c->n_ore; i++)
        PyList_SET_ITEM(lists[4], i, PyLong_FromLong(c->ev_ore[i]));
    if (PyErr_Occurred()) {
        for (int e = 0; e < 5; e++) Py_XDECREF(lists[e]);
        return NULL;
    }
    return Py_BuildValue("(NNNNN)", lists[0], lists[1], lists[2], lists[3], lists[4]);
}

static PyObject *core_get_tick(fc_core *c, void *unused) { return PyLong_FromLongLong(c->tick); }

/* Whether the match is over after this tick (sim._rules.outcome is not None), fuel aside. */
static PyObject *core_get_ended(fc_core *c, void *unused) {
    int a = c->sides[0].colony_hp > 0, b = c->sides[1].colony_hp > 0;
    return PyBool_FromLong(a != b || !a || c->tick >= c->cfg[FC_MAX_TICKS]);
}

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

static PyObject *blake2b_64(PyObject *module, PyObject *arg) {
    Py_buffer data;
    if (PyObject_GetBuffer(arg, &data, PyBUF_SIMPLE) < 0) return NULL;
    uint64_t digest = fc_blake2b_64(data.buf, (size_t)data.len);
    PyBuffer_Release(&data);
    return PyLong_FromUnsignedLongLong(digest);
}

static PyMethodDef module_methods[] = {
    {"blake2b_64", blake2b_64, METH_O,
     "blake2b_64(data) -> int: BLAKE2b with an 8-byte digest, as a little-endian integer."},
    {NULL, NULL, 0, NULL},
};

static fc_api api = {FC_LAYOUT, &CoreType, checksum};

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
