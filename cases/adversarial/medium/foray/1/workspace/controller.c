/*
 * template.c -- a minimal Foray controller to start from.
 *
 * Workers walk to the nearest ore they can see, mine it until full, walk home
 * and deposit; the colony spawns workers while it can afford them. Soldiers
 * are left idle. Everything the bot sees is in its own frame, so the same
 * code plays either side.
 *
 * Build (from the repository root):
 *   python -m ziglang cc -target wasm32-freestanding -O2 -nostdlib \
 *       -fno-stack-protector -Wl,--no-entry -Wl,--strip-all \
 *       -I baselines -o my.wasm baselines/template.c
 */
#include "foray.h"

/* Distance from every cell to the own colony (1 = may deposit there),
 * computed once: the terrain never changes. */
static uint16_t home[FORAY_MAX_CELLS];

void bot_init(const foray_init_t *game) {
    foray_bfs_from(home, game->colony_x, game->colony_y);
}

/* Moves resolve together: two units stepping into one cell both fail, and a
 * unit cannot enter a cell whose occupant stays. So remember, per tick, the
 * cells our units stand on and the cells they already aim at (stamped with
 * the tick, to avoid clearing the arrays). */
static int32_t standing[FORAY_MAX_CELLS], claimed[FORAY_MAX_CELLS];

static int32_t free_cell(int32_t x, int32_t y, int32_t stamp) {
    if (!foray_passable(x, y)) return 0;
    int32_t c = foray_cell(x, y);
    return standing[c] != stamp && claimed[c] != stamp;
}

/* Step u towards (tx, ty) if a free neighbour is nearer; claim the cell. A
 * plain greedy step: it can stall behind rock; a real bot would use BFS
 * (foray_bfs, foray_step_down). */
static void step_toward(foray_actions_t *acts, const foray_unit_t *u, int32_t tx, int32_t ty,
                        int32_t stamp) {
    int32_t best = 0, best_d = foray_manhattan(u->x, u->y, tx, ty);
    for (int32_t d = 1; d <= 4; d++) {
        int32_t nx = u->x + FORAY_DX[d], ny = u->y + FORAY_DY[d];
        int32_t nd = foray_manhattan(nx, ny, tx, ty);
        if (nd < best_d && free_cell(nx, ny, stamp)) best = d, best_d = nd;
    }
    if (!best) {
        /* Blocked: a random free step now and then unjams crowds. */
        int32_t d = 1 + foray_rng_below(&foray_rng, 8);
        if (d <= 4 && free_cell(u->x + FORAY_DX[d], u->y + FORAY_DY[d], stamp)) best = d;
    }
    if (best && foray_move(acts, u, best))
        claimed[foray_cell(u->x + FORAY_DX[best], u->y + FORAY_DY[best])] = stamp;
}

void bot_tick(const foray_obs_t *obs, foray_actions_t *acts) {
    int32_t stamp = obs->tick + 1;
    for (int32_t i = 0; i < obs->n_own; i++) standing[foray_cell(obs->own[i].x, obs->own[i].y)] = stamp;

    for (int32_t i = 0; i < obs->n_own; i++) {
        const foray_unit_t *u = &obs->own[i];
        if (u->kind != FORAY_WORKER) continue; /* soldiers: your turn */

        if (u->carry >= foray_game.carry_cap) {
            /* Full: deposit if next to the colony, else walk home. */
            int32_t d = foray_step_down(home, u->x, u->y);
            if (home[foray_cell(u->x, u->y)] == 1) foray_deposit(acts, u);
            else if (d) step_toward(acts, u, u->x + FORAY_DX[d], u->y + FORAY_DY[d], stamp);
            continue;
        }
        /* The nearest visible ore cell (obs->ore lists only cells with ore). */
        const foray_ore_t *best = 0;
        int32_t best_d = 1 << 30;
        for (int32_t k = 0; k < obs->n_ore; k++) {
            int32_t d = foray_manhattan(u->x, u->y, obs->ore[k].x, obs->ore[k].y);
            if (d < best_d) best = &obs->ore[k], best_d = d;
        }
        if (!best) continue; /* nothing in sight: no action means NOOP */
        /* foray_mine refuses a malformed arg (here: -1 for a diagonal cell),
         * so a slip is simply no action, never a forfeit. */
        if (best_d <= 1) {
            foray_mine(acts, u, foray_dir_to(u->x, u->y, best->x, best->y));
        } else {
            step_toward(acts, u, best->x, best->y, stamp);
        }
    }
    if (obs->energy >= foray_game.worker_cost) foray_spawn(acts, FORAY_WORKER);
}
