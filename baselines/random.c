/*
 * random.c -- the exhibition baseline: seeded random legal actions.
 *
 * Each unit picks an action its kind can take (workers move, mine or
 * deposit; soldiers move or attack), with a random argument in range, and
 * the colony sometimes spawns a random kind. The emitters in foray.h
 * guarantee the records obey the contract, so it never forfeits. The same
 * seed gives the same choices, and it does not try to play well.
 */
#include "foray.h"

void bot_init(const foray_init_t *game) { (void)game; }

void bot_tick(const foray_obs_t *obs, foray_actions_t *acts) {
    foray_rng_t *r = &foray_rng;
    for (int32_t i = 0; i < obs->n_own; i++) {
        const foray_unit_t *u = &obs->own[i];
        int32_t roll = foray_rng_below(r, 8);
        if (roll == 0) continue; /* no action: NOOP */
        if (roll == 1) {
            foray_act(acts, u, FORAY_NOOP, 0);
        } else if (roll <= 4) {
            foray_move(acts, u, 1 + foray_rng_below(r, 4));
        } else if (u->kind == FORAY_SOLDIER) {
            foray_attack(acts, u, 1 + foray_rng_below(r, 4));
        } else if (roll == 7) {
            foray_deposit(acts, u);
        } else {
            foray_mine(acts, u, foray_rng_below(r, 5));
        }
    }
    if (foray_rng_below(r, 4) == 0)
        foray_spawn(acts, foray_rng_below(r, 2) ? FORAY_SOLDIER : FORAY_WORKER);
}
