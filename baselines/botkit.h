/*
 * botkit.h -- helpers shared by the committed baselines (not part of the
 * contract; foray.h is). Include after foray.h, in one C file.
 *
 * - a per-tick picture of who stands where (own and visible enemy units);
 * - moves that never collide with our own units: a unit steps only into a
 *   cell no other of our units aims at, and that is empty or being left, so
 *   our units never block each other or swap (both of which fail, rules §6.4);
 * - field-following with sidesteps that unjam crowds;
 * - strikes that focus fire: damage already aimed at an enemy this tick is
 *   counted, so soldiers finish wounded units instead of overkilling;
 * - a small cache of BFS distance fields keyed by their target cell.
 *
 * Per-cell arrays are stamped with the tick instead of cleared each tick.
 */
#ifndef FORAY_BOTKIT_H
#define FORAY_BOTKIT_H

#include "foray.h"

#define BK_API static __attribute__((unused))

BK_API int32_t bk_stamp; /* obs->tick + 1 during a tick */
BK_API const foray_obs_t *bk_obs;
BK_API int32_t bk_own_stamp[FORAY_MAX_CELLS], bk_own_at[FORAY_MAX_CELLS];
BK_API int32_t bk_foe_stamp[FORAY_MAX_CELLS], bk_foe_at[FORAY_MAX_CELLS];
BK_API int32_t bk_aimed[FORAY_MAX_CELLS]; /* an own move targets the cell */
BK_API int32_t bk_left[FORAY_MAX_CELLS];  /* its own occupant moves out */
BK_API int32_t bk_dmg[FORAY_MAX_UNITS];   /* damage aimed at obs->enemy[i] */

/* New fields a tick may compute: a BFS over a 64x64 map costs a few hundred
 * thousand fuel, and a burst of new targets must not exhaust fuel_per_tick. */
#ifndef BK_FIELDS_PER_TICK
#define BK_FIELDS_PER_TICK 3
#endif
BK_API int32_t bk_field_budget = BK_FIELDS_PER_TICK;

/* Call first thing in bot_tick. */
BK_API void bk_begin(const foray_obs_t *obs) {
    bk_obs = obs;
    bk_stamp = obs->tick + 1;
    bk_field_budget = BK_FIELDS_PER_TICK;
    for (int32_t i = 0; i < obs->n_own; i++) {
        int32_t c = foray_cell(obs->own[i].x, obs->own[i].y);
        bk_own_stamp[c] = bk_stamp;
        bk_own_at[c] = i;
    }
    for (int32_t i = 0; i < obs->n_enemy; i++) {
        int32_t c = foray_cell(obs->enemy[i].x, obs->enemy[i].y);
        bk_foe_stamp[c] = bk_stamp;
        bk_foe_at[c] = i;
        bk_dmg[i] = 0;
    }
}

/* Index into obs->own / obs->enemy of the unit on (x, y), or -1. */
BK_API int32_t bk_own_on(int32_t x, int32_t y) {
    if (!foray_in_bounds(x, y)) return -1;
    int32_t c = foray_cell(x, y);
    return bk_own_stamp[c] == bk_stamp ? bk_own_at[c] : -1;
}
BK_API int32_t bk_foe_on(int32_t x, int32_t y) {
    if (!foray_in_bounds(x, y)) return -1;
    int32_t c = foray_cell(x, y);
    return bk_foe_stamp[c] == bk_stamp ? bk_foe_at[c] : -1;
}

/* Whether an own unit may step into (x, y) this tick without bumping into
 * one of ours: passable, not aimed at, no enemy, and empty or being left. */
BK_API int32_t bk_free(int32_t x, int32_t y) {
    if (!foray_passable(x, y)) return 0;
    int32_t c = foray_cell(x, y);
    if (bk_aimed[c] == bk_stamp || bk_foe_stamp[c] == bk_stamp) return 0;
    return bk_own_stamp[c] != bk_stamp || bk_left[c] == bk_stamp;
}

BK_API int32_t bk_move(foray_actions_t *a, const foray_unit_t *u, int32_t dir) {
    if (dir < 1 || dir > 4) return 0;
    int32_t nx = u->x + FORAY_DX[dir], ny = u->y + FORAY_DY[dir];
    if (!bk_free(nx, ny) || !foray_move(a, u, dir)) return 0;
    bk_aimed[foray_cell(nx, ny)] = bk_stamp;
    bk_left[foray_cell(u->x, u->y)] = bk_stamp;
    return 1;
}

/* A random free neighbour step (to unjam); 0 if none was taken. */
BK_API int32_t bk_jiggle(foray_actions_t *a, const foray_unit_t *u) {
    int32_t d0 = foray_rng_below(&foray_rng, 4);
    for (int32_t k = 0; k < 4; k++)
        if (bk_move(a, u, 1 + (d0 + k) % 4)) return 1;
    return 0;
}

/* How a unit behaves when its way down a field is blocked by our own units. */
enum {
    BK_WAIT = 0,  /* wait; only now and then jiggle */
    BK_YIELD = 1, /* step aside, so the other stream gets through */
    BK_PUSH = 2   /* right of way: shove aside a unit that has not acted yet */
};

/* Shove own unit b one step anywhere free (it gives up its action). */
BK_API int32_t bk_shove(foray_actions_t *a, const foray_unit_t *b) {
    if (foray_acted(a, b) || (b->kind == FORAY_WORKER && b->carry >= foray_game.carry_cap)) return 0;
    return bk_jiggle(a, b);
}

/* Step down the field: the lowest free neighbour below the current value;
 * when every way down is blocked by our own units, behave as `mode` says.
 * Move right-of-way units first: they see the cells the others will free,
 * and may shove the others before those have acted. Returns 1 if u moved. */
BK_API int32_t bk_follow_mode(foray_actions_t *a, const foray_unit_t *u, const uint16_t *field,
                              int32_t mode) {
    uint32_t here = field[foray_cell(u->x, u->y)];
    int32_t d0 = foray_rng_below(&foray_rng, 4), blocked = 0, level = 0, push_dir = 0;
    uint32_t best = here, push_v = here;
    int32_t best_dir = 0;
    for (int32_t k = 0; k < 4; k++) {
        int32_t d = 1 + (d0 + k) % 4;
        int32_t nx = u->x + FORAY_DX[d], ny = u->y + FORAY_DY[d];
        if (!foray_passable(nx, ny)) continue;
        uint32_t v = field[foray_cell(nx, ny)];
        if (!bk_free(nx, ny)) {
            if (v < here) {
                blocked = 1;
                if (v < push_v && bk_own_on(nx, ny) >= 0) push_v = v, push_dir = d;
            }
            continue;
        }
        if (v < best) best = v, best_dir = d;
        else if (v == here && !level) level = d;
    }
    if (best_dir) return bk_move(a, u, best_dir);
    if (mode == BK_PUSH && push_dir) {
        int32_t b = bk_own_on(u->x + FORAY_DX[push_dir], u->y + FORAY_DY[push_dir]);
        if (bk_shove(a, &bk_obs->own[b])) return bk_move(a, u, push_dir);
    }
    if (!blocked) return 0; /* at a minimum, or walled in by rock */
    int32_t roll = foray_rng_below(&foray_rng, 8);
    if (mode == BK_YIELD ? roll < 6 : roll == 0) return level ? bk_move(a, u, level) : bk_jiggle(a, u);
    return 0;
}

BK_API int32_t bk_follow_yield(foray_actions_t *a, const foray_unit_t *u, const uint16_t *field,
                               int32_t yield) {
    return bk_follow_mode(a, u, field, yield ? BK_YIELD : BK_WAIT);
}

BK_API int32_t bk_follow(foray_actions_t *a, const foray_unit_t *u, const uint16_t *field) {
    return bk_follow_mode(a, u, field, BK_WAIT);
}

/* Sort n indices by key ascending (insertion sort: n <= 64). */
BK_API void bk_sort(int32_t *idx, const int32_t *key, int32_t n) {
    for (int32_t i = 1; i < n; i++) {
        int32_t v = idx[i], j = i;
        while (j > 0 && key[idx[j - 1]] > key[v]) idx[j] = idx[j - 1], j--;
        idx[j] = v;
    }
}

/* Greedy step toward (tx, ty) for short chases (a few cells, in the open);
 * falls back to a sidestep when the straight ways are blocked. */
BK_API int32_t bk_toward(foray_actions_t *a, const foray_unit_t *u, int32_t tx, int32_t ty) {
    int32_t here = foray_manhattan(u->x, u->y, tx, ty), d0 = foray_rng_below(&foray_rng, 4);
    for (int32_t k = 0; k < 4; k++) {
        int32_t d = 1 + (d0 + k) % 4;
        if (foray_manhattan(u->x + FORAY_DX[d], u->y + FORAY_DY[d], tx, ty) < here && bk_move(a, u, d))
            return 1;
    }
    return foray_rng_below(&foray_rng, 3) == 0 ? bk_jiggle(a, u) : 0;
}

/* Strike an adjacent enemy, focusing fire: prefer a unit this hit (with what
 * others already aim at it) kills, then soldiers, then the most wounded; a
 * unit already doomed by other strikes is skipped. The enemy colony is hit
 * when no unit is worth it, or first when colony_first is set. Returns 1 if
 * an attack was emitted. */
BK_API int32_t bk_strike(foray_actions_t *a, const foray_unit_t *u, int32_t colony_first) {
    if (u->kind != FORAY_SOLDIER) return 0;
    const int32_t atk = foray_game.soldier_attack;
    int32_t best_dir = 0, best_score = -1, best_foe = -1, colony_dir = 0;
    for (int32_t d = 1; d <= 4; d++) {
        int32_t nx = u->x + FORAY_DX[d], ny = u->y + FORAY_DY[d];
        if (nx == foray_game.enemy_colony_x && ny == foray_game.enemy_colony_y) colony_dir = d;
        int32_t e = bk_foe_on(nx, ny);
        if (e < 0) continue;
        const foray_unit_t *f = &bk_obs->enemy[e];
        int32_t left = f->hp - bk_dmg[e];
        if (left <= 0) continue;
        /* Kills first, then soldiers, then the least hp left. */
        int32_t score = (left <= atk ? 4000 : 0) + (f->kind == FORAY_SOLDIER ? 2000 : 0) +
                        (1000 - foray_min(left, 999));
        if (score > best_score) best_score = score, best_dir = d, best_foe = e;
    }
    if (colony_dir && (colony_first || !best_dir)) return foray_attack(a, u, colony_dir);
    if (!best_dir || !foray_attack(a, u, best_dir)) return 0;
    bk_dmg[best_foe] += atk;
    return 1;
}

/* ------------------------------------------------------ home fields, ore */

BK_API uint16_t bk_home[FORAY_MAX_CELLS]; /* steps to our colony: 1 = deposit here */
BK_API uint16_t bk_away[FORAY_MAX_CELLS]; /* steps to the enemy colony: 1 = strike it */
BK_API int32_t bk_ore[FORAY_MAX_CELLS];   /* believed ore: INIT, then what we saw */
BK_API int32_t bk_ore_seen[FORAY_MAX_CELLS]; /* listed in this tick's observation */
BK_API int32_t bk_req[FORAY_MAX_CELLS], bk_req_stamp[FORAY_MAX_CELLS]; /* our MINEs per cell */

/* Call from bot_init. */
BK_API void bk_setup(const foray_init_t *g) {
    foray_bfs_from(bk_home, g->colony_x, g->colony_y);
    foray_bfs_from(bk_away, g->enemy_colony_x, g->enemy_colony_y);
    for (int32_t i = 0; i < g->n_ore; i++) bk_ore[foray_cell(g->ore[i].x, g->ore[i].y)] = g->ore[i].amount;
}

/* Take in the ore the observation lists (call after bk_begin). Cells it does
 * not list are corrected lazily, by the units that stand next to them. */
BK_API void bk_ore_observe(const foray_obs_t *obs) {
    for (int32_t i = 0; i < obs->n_ore; i++) {
        int32_t c = foray_cell(obs->ore[i].x, obs->ore[i].y);
        bk_ore[c] = obs->ore[i].amount;
        bk_ore_seen[c] = bk_stamp;
    }
}

BK_API int32_t bk_is_home(int32_t x, int32_t y) { return bk_home[foray_cell(x, y)] == 1; }

/* Mine the richest cell among u's own and its 4 neighbours whose ore covers
 * one more of our requests (a cell short of its requests yields nothing to
 * anyone, rules §6.5). Cells u sees but the observation does not list are
 * empty: the belief is corrected here. Returns 1 if a MINE was emitted. */
BK_API int32_t bk_mine_near(foray_actions_t *a, const foray_unit_t *u) {
    int32_t best_dir = -1, best_left = 0;
    for (int32_t d = 0; d <= 4; d++) {
        int32_t nx = u->x + FORAY_DX[d], ny = u->y + FORAY_DY[d];
        if (!foray_in_bounds(nx, ny)) continue;
        int32_t c = foray_cell(nx, ny);
        if (bk_ore[c] <= 0) continue;
        if (bk_ore_seen[c] != bk_stamp && (d == 0 || foray_game.unit_vision >= 1)) {
            bk_ore[c] = 0; /* u sees the cell, and the observation lists no ore there */
            continue;
        }
        int32_t taken = bk_req_stamp[c] == bk_stamp ? bk_req[c] : 0;
        int32_t left = bk_ore[c] - taken;
        if (left > best_left) best_left = left, best_dir = d;
    }
    if (best_dir < 0 || !foray_mine(a, u, best_dir)) return 0;
    int32_t c = foray_cell(u->x + FORAY_DX[best_dir], u->y + FORAY_DY[best_dir]);
    if (bk_req_stamp[c] != bk_stamp) bk_req_stamp[c] = bk_stamp, bk_req[c] = 0;
    bk_req[c]++;
    return 1;
}

/* Walk home (with right of way) and deposit. */
BK_API int32_t bk_go_home(foray_actions_t *a, const foray_unit_t *u) {
    if (bk_is_home(u->x, u->y)) return foray_deposit(a, u);
    return bk_follow_mode(a, u, bk_home, BK_PUSH);
}

/* The worker of the simple baselines: full, it walks home and deposits;
 * else it mines next to it, or walks down ore_field (steps to the ore it
 * wants), giving way to loaded workers. */
BK_API void bk_simple_worker(foray_actions_t *a, const foray_unit_t *u, const uint16_t *ore_field) {
    if (foray_acted(a, u)) return; /* shoved aside by a loaded worker */
    if (u->carry >= foray_game.carry_cap) {
        bk_go_home(a, u);
    } else if (bk_mine_near(a, u)) {
        return;
    } else if (ore_field[foray_cell(u->x, u->y)] == FORAY_FAR) {
        if (u->carry > 0) bk_go_home(a, u); /* nothing left to mine: bank the rest */
    } else if (!bk_follow_yield(a, u, ore_field, 1) && u->carry > 0 && bk_is_home(u->x, u->y)) {
        foray_deposit(a, u); /* stuck next to home anyway: bank what it has */
    }
}

/* The order the simple baselines move their units in: loaded workers by
 * distance home, then soldiers, then the other workers by distance to ore,
 * so each unit sees the cells the ones ahead of it free. */
BK_API void bk_simple_order(const foray_obs_t *obs, const uint16_t *ore_field, int32_t *order) {
    static int32_t key[FORAY_MAX_UNITS];
    for (int32_t i = 0; i < obs->n_own; i++) {
        const foray_unit_t *u = &obs->own[i];
        int32_t c = foray_cell(u->x, u->y);
        order[i] = i;
        if (u->kind == FORAY_SOLDIER) key[i] = 0x20000;
        else if (u->carry >= foray_game.carry_cap) key[i] = bk_home[c];
        else key[i] = 0x40000 + ore_field[c];
    }
    bk_sort(order, key, obs->n_own);
}

/* --------------------------------------------------- cached BFS fields */

#ifndef BK_FIELD_SLOTS
#define BK_FIELD_SLOTS 16
#endif
BK_API uint16_t bk_fields[BK_FIELD_SLOTS][FORAY_MAX_CELLS];
BK_API int32_t bk_field_key[BK_FIELD_SLOTS]; /* target cell + 1; 0 = empty */
BK_API int32_t bk_field_used[BK_FIELD_SLOTS];
BK_API int32_t bk_field_clock;

/* The distance field to cell c (computed on a miss, least recently used slot
 * evicted), or 0 when it is not cached and this tick's budget is spent: the
 * caller makes do (a greedy step) and gets it a tick later. The terrain never
 * changes, so a field stays valid all match. */
BK_API const uint16_t *bk_field(int32_t c) {
    int32_t victim = 0;
    bk_field_clock++;
    for (int32_t s = 0; s < BK_FIELD_SLOTS; s++) {
        if (bk_field_key[s] == c + 1) {
            bk_field_used[s] = bk_field_clock;
            return bk_fields[s];
        }
        if (bk_field_used[s] < bk_field_used[victim]) victim = s;
    }
    if (bk_field_budget <= 0) return 0;
    bk_field_budget--;
    foray_bfs(bk_fields[victim], &c, 1);
    bk_field_key[victim] = c + 1;
    bk_field_used[victim] = bk_field_clock;
    return bk_fields[victim];
}

/* Walk towards cell c by its field, or greedily while the field waits. */
BK_API int32_t bk_go_to(foray_actions_t *a, const foray_unit_t *u, int32_t c, int32_t mode) {
    const uint16_t *f = bk_field(c);
    if (f) return bk_follow_mode(a, u, f, mode);
    return bk_toward(a, u, c % foray_game.width, c / foray_game.width);
}

/* Steps from cell `from` to cell c if c's field is at hand, else Manhattan. */
BK_API int32_t bk_steps(int32_t c, int32_t from) {
    const uint16_t *f = bk_field(c);
    int32_t w = foray_game.width;
    return f ? f[from] : foray_manhattan(c % w, c / w, from % w, from / w);
}

#endif /* FORAY_BOTKIT_H */
