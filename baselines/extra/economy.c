/*
 * economy.c -- a sparring partner, not a baseline: workers only.
 *
 * Every worker mines the nearest ore (a BFS from every cell believed to hold
 * ore, each tick) and banks it; the colony spawns a worker whenever it can.
 * No soldiers: it wins on score or not at all. The strength tests of the
 * baselines use it to show that the reference bot beats a pure economy.
 */
#include "foray.h"
#include "botkit.h"

static uint16_t ore_field[FORAY_MAX_CELLS];
static int32_t sources[FORAY_MAX_CELLS];

void bot_init(const foray_init_t *game) { bk_setup(game); }

void bot_tick(const foray_obs_t *obs, foray_actions_t *acts) {
    bk_begin(obs);
    bk_ore_observe(obs);
    int32_t n = 0, area = foray_game.width * foray_game.height;
    for (int32_t c = 0; c < area; c++)
        if (bk_ore[c] > 0) sources[n++] = c;
    foray_bfs(ore_field, sources, n);

    static int32_t order[FORAY_MAX_UNITS];
    bk_simple_order(obs, ore_field, order);
    for (int32_t j = 0; j < obs->n_own; j++) bk_simple_worker(acts, &obs->own[order[j]], ore_field);
    foray_spawn(acts, FORAY_WORKER);
}
