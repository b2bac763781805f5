/* The rules of a tick (sim/_rules.py: step, and whether the match is over), on a core.
 *
 * Each function follows its Python original step for step, in the same order,
 * so the two read side by side (core_internal.h says how the core is split).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdlib.h>
#include <string.h>

#include "core_internal.h"

/* ------------------------------------------------------------------ the ore and the units */

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

/* ------------------------------------------------------------------ the step */

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

/* ------------------------------------------------------------------ its Python face */

PyObject *core_step(fc_core *c, PyObject *unused) {
    if (!c->fresh[0] || !c->fresh[1]) {
        PyErr_SetString(PyExc_RuntimeError, "step: take both sides' records first");
        return NULL;
    }
    step(c);
    c->fresh[0] = c->fresh[1] = 0; /* the records stay, for the tick's frame */
    Py_RETURN_NONE;
}

/* The last step's events (sim.TickEvents' attacks, deaths, spawns, deposits, ore_changed). */
PyObject *core_events(fc_core *c, PyObject *unused) {
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

/* Whether the match is over after this tick (sim._rules.outcome is not None), fuel aside. */
PyObject *core_get_ended(fc_core *c, void *unused) {
    int a = c->sides[0].colony_hp > 0, b = c->sides[1].colony_hp > 0;
    return PyBool_FromLong(a != b || !a || c->tick >= c->cfg[FC_MAX_TICKS]);
}
