/* busy: every unit acts every tick and the colony spawns whenever it can, so a
 * match fills both sides to max_units. The worst case for benchmarks and for
 * replay size; not a baseline, and not trying to win. */
#include "../foray.h"

void bot_init(const foray_init_t *game) { (void)game; }

void bot_tick(const foray_obs_t *obs, foray_actions_t *acts) {
    foray_spawn(acts, (obs->tick & 1) ? FORAY_SOLDIER : FORAY_WORKER);
    for (int32_t i = 0; i < obs->n_own; i++) {
        const foray_unit_t *u = &obs->own[i];
        uint32_t h = (uint32_t)u->id * 2654435761u + (uint32_t)obs->tick * 40503u;
        int32_t dir = 1 + (int32_t)((h >> 16) & 3);
        int32_t home = foray_manhattan(u->x, u->y, foray_game.colony_x, foray_game.colony_y);
        if (u->kind == FORAY_WORKER && u->carry > 0 && home == 1) foray_deposit(acts, u);
        else if (u->kind == FORAY_SOLDIER && (h & 0x300) == 0) foray_attack(acts, u, dir);
        else if (u->kind == FORAY_WORKER && (h & 0x100) == 0) foray_mine(acts, u, dir);
        else foray_move(acts, u, dir);
    }
}
