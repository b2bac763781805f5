/*
 * greedy_raider.c -- a baseline: grab ore, raid the enemy's workers.
 *
 * Workers mine the nearest ore anywhere (a BFS from every cell believed to
 * hold ore, redone each tick) and carry it home. Soldiers chase the nearest
 * visible enemy worker (another per-tick BFS) and, with none in sight, march
 * on the enemy colony. Soldiers strike whatever stands next to them first.
 * The colony builds five workers, then alternates soldiers and workers up to
 * ten workers, then only soldiers.
 */
#include "foray.h"
#include "botkit.h"

static uint16_t ore_field[FORAY_MAX_CELLS];  /* steps to the nearest believed ore */
static uint16_t prey_field[FORAY_MAX_CELLS]; /* steps to the nearest visible enemy worker */
static int32_t sources[FORAY_MAX_CELLS];

void bot_init(const foray_init_t *game) { bk_setup(game); }

static void spawn(const foray_obs_t *obs, foray_actions_t *acts) {
    int32_t workers = 0, soldiers = 0;
    for (int32_t i = 0; i < obs->n_own; i++) {
        if (obs->own[i].kind == FORAY_WORKER) workers++;
        else soldiers++;
    }
    /* Asking for a unit we cannot afford is a no-op: the energy keeps. */
    if (workers < 5 || (workers < 10 && soldiers >= workers - 5)) foray_spawn(acts, FORAY_WORKER);
    else foray_spawn(acts, FORAY_SOLDIER);
}

void bot_tick(const foray_obs_t *obs, foray_actions_t *acts) {
    bk_begin(obs);
    bk_ore_observe(obs);
    const int32_t area = foray_game.width * foray_game.height;

    int32_t n = 0;
    for (int32_t c = 0; c < area; c++)
        if (bk_ore[c] > 0) sources[n++] = c;
    foray_bfs(ore_field, sources, n);

    n = 0;
    for (int32_t i = 0; i < obs->n_enemy; i++)
        if (obs->enemy[i].kind == FORAY_WORKER) sources[n++] = foray_cell(obs->enemy[i].x, obs->enemy[i].y);
    if (n) foray_bfs(prey_field, sources, n);

    static int32_t order[FORAY_MAX_UNITS];
    bk_simple_order(obs, ore_field, order);
    for (int32_t j = 0; j < obs->n_own; j++) {
        const foray_unit_t *u = &obs->own[order[j]];
        int32_t c = foray_cell(u->x, u->y);
        if (foray_acted(acts, u)) continue; /* shoved aside by a loaded worker */
        if (u->kind == FORAY_WORKER) {
            bk_simple_worker(acts, u, ore_field);
        } else {
            if (bk_strike(acts, u, 0)) continue;
            if (n && prey_field[c] != FORAY_FAR) bk_follow(acts, u, prey_field);
            else bk_follow(acts, u, bk_away);
        }
    }
    spawn(obs, acts);
}
