/*
 * fuel_probe.c -- the hidden, stronger reference baseline.
 *
 * Economy: each worker keeps a target ore cell, chosen by the walk from home
 * (the trip it will repeat) plus a crowding charge for workers already sent
 * there, and walks a BFS field to it that is cached per target (the terrain
 * never changes); it mines whatever good cell it stands next to, banks when
 * full, and runs home from enemy soldiers.
 * Defence: soldiers wait at a rally point between our colony and theirs and
 * go for enemies that enter our half, focusing fire on what they can kill.
 * Attack: once enough soldiers stand idle (or half the match is gone), they
 * march together on the enemy colony, the front waiting for the rear.
 * Fuel: BFS fields are computed at init or once per new target and reused;
 * a tick only looks at units, the listed ore and, rarely, the ore cells.
 */
#define BK_FIELD_SLOTS 40
#include "foray.h"
#include "botkit.h"

#define MAX_ID 4096      /* per-unit memory for ids below this */
#define CROWD_COST 4     /* extra steps charged per worker already on a target */
#define ENEMY_HALF_COST 8 /* extra steps charged for ore nearer the enemy */
#define FLEE_RANGE 2     /* a worker runs home from enemy soldiers this close */
#define RALLY_STEPS 5    /* the rally point is this far from home towards them */
#define RAID_SIZE 6      /* idle soldiers that set off an attack */
#define RAID_SLACK 3     /* the front waits while further ahead than this */

static int32_t target_of[MAX_ID]; /* worker id -> ore cell + 1 (0: none) */
static uint8_t raider[MAX_ID];    /* soldier id -> marching on the enemy */
static int32_t ore_cells[FORAY_MAX_CELLS], n_ore_cells;
static uint8_t listed[FORAY_MAX_CELLS]; /* in ore_cells */
static int32_t crowd[FORAY_MAX_CELLS], crowd_stamp[FORAY_MAX_CELLS];
static int32_t rally;       /* cell where idle soldiers wait */
static int32_t raid_on;     /* an attack is under way */
static int32_t worker_goal; /* workers to build before soldiers only */

static void note_ore(int32_t c) {
    if (!listed[c]) listed[c] = 1, ore_cells[n_ore_cells++] = c;
}

void bot_init(const foray_init_t *g) {
    bk_setup(g);
    for (int32_t i = 0; i < g->n_ore; i++) note_ore(foray_cell(g->ore[i].x, g->ore[i].y));
    /* Rally: RALLY_STEPS from home, on the shortest way to the enemy. */
    int32_t area = g->width * g->height, best = 1 << 30;
    rally = -1;
    for (int32_t c = 0; c < area; c++) {
        if (bk_home[c] == FORAY_FAR || bk_away[c] == FORAY_FAR) continue;
        int32_t score = foray_abs((int32_t)bk_home[c] - RALLY_STEPS) * 64 + bk_away[c];
        if (score < best) best = score, rally = c;
    }
    worker_goal = foray_max(6, foray_min(14, 6 + area / 160));
}

static int32_t crowd_at(int32_t c) { return crowd_stamp[c] == bk_stamp ? crowd[c] : 0; }
static void crowd_add(int32_t c) {
    if (crowd_stamp[c] != bk_stamp) crowd_stamp[c] = bk_stamp, crowd[c] = 0;
    crowd[c]++;
}

/* The best ore cell for a worker at c0: a short trip home, not crowded. */
static int32_t pick_target(int32_t c0) {
    int32_t best = -1, best_cost = 1 << 30, w = foray_game.width;
    for (int32_t k = 0; k < n_ore_cells; k++) {
        int32_t c = ore_cells[k];
        if (bk_ore[c] <= 0 || bk_home[c] == FORAY_FAR) continue;
        int32_t cost = 2 * bk_home[c] + CROWD_COST * crowd_at(c) +
                       foray_manhattan(c % w, c / w, c0 % w, c0 / w) / 2;
        if (bk_away[c] < bk_home[c]) cost += ENEMY_HALF_COST;
        if (cost < best_cost) best_cost = cost, best = c;
    }
    return best;
}

/* An enemy soldier within range of (x, y)? */
static int32_t soldier_near(const foray_obs_t *obs, int32_t x, int32_t y, int32_t range) {
    for (int32_t e = 0; e < obs->n_enemy; e++)
        if (obs->enemy[e].kind == FORAY_SOLDIER && foray_manhattan(x, y, obs->enemy[e].x, obs->enemy[e].y) <= range)
            return 1;
    return 0;
}

static void work(const foray_obs_t *obs, foray_actions_t *acts, const foray_unit_t *u) {
    int32_t c = foray_cell(u->x, u->y);
    if (u->carry > 0 && bk_is_home(u->x, u->y) &&
        (u->carry >= foray_game.carry_cap || soldier_near(obs, u->x, u->y, FLEE_RANGE))) {
        foray_deposit(acts, u);
        return;
    }
    if (u->carry >= foray_game.carry_cap || soldier_near(obs, u->x, u->y, FLEE_RANGE)) {
        bk_follow(acts, u, bk_home);
        return;
    }
    if (bk_mine_near(acts, u)) return;
    int32_t id = u->id < MAX_ID ? u->id : 0, t = target_of[id] - 1;
    if (t < 0 || bk_ore[t] <= 0) {
        t = pick_target(c);
        target_of[id] = t + 1;
        if (t >= 0) crowd_add(t);
    }
    if (t < 0) {
        if (u->carry > 0) bk_go_home(acts, u); /* no ore left anywhere we know */
        return;
    }
    const uint16_t *f = bk_field(t);
    if (f[c] <= 1) {
        /* Next to the target but it gave nothing (taken, or just emptied):
         * choose again next tick. */
        target_of[id] = 0;
        bk_jiggle(acts, u);
        return;
    }
    bk_follow_yield(acts, u, f, 1);
}

/* The enemy unit nearest to (x, y) among those inside our half, -1 if none;
 * soldiers count double (they are the danger). */
static int32_t nearest_intruder(const foray_obs_t *obs, int32_t x, int32_t y) {
    int32_t best = -1, best_d = 1 << 30;
    for (int32_t e = 0; e < obs->n_enemy; e++) {
        const foray_unit_t *f = &obs->enemy[e];
        int32_t fc = foray_cell(f->x, f->y);
        if (bk_home[fc] > bk_away[fc] + 1) continue;
        int32_t d = foray_manhattan(x, y, f->x, f->y) * (f->kind == FORAY_SOLDIER ? 1 : 2);
        if (d < best_d) best_d = d, best = e;
    }
    return best;
}

static void defend(const foray_obs_t *obs, foray_actions_t *acts, const foray_unit_t *u) {
    if (bk_strike(acts, u, 0)) return;
    int32_t e = nearest_intruder(obs, u->x, u->y);
    if (e >= 0) bk_toward(acts, u, obs->enemy[e].x, obs->enemy[e].y);
    else if (rally >= 0 && bk_field(rally)[foray_cell(u->x, u->y)] > 1) bk_follow(acts, u, bk_field(rally));
}

static void raid(const foray_obs_t *obs, foray_actions_t *acts, const foray_unit_t *u, int32_t rear) {
    /* Hit the colony first unless an enemy soldier stands next to us and the
     * colony will not fall to this blow. */
    int32_t colony_first = !soldier_near(obs, u->x, u->y, 1) ||
                           (obs->enemy_colony_hp >= 0 && obs->enemy_colony_hp <= foray_game.soldier_attack);
    if (bk_strike(acts, u, colony_first)) return;
    int32_t here = bk_away[foray_cell(u->x, u->y)];
    if (here > 6 && here + RAID_SLACK < rear) return; /* let the rear catch up */
    bk_follow(acts, u, bk_away);
}

static void spawn(const foray_obs_t *obs, foray_actions_t *acts, int32_t workers, int32_t soldiers,
                  int32_t threats) {
    int32_t kind;
    if (workers < 4) kind = FORAY_WORKER;
    else if (threats >= soldiers) kind = FORAY_SOLDIER;
    else if (soldiers < 1 && obs->tick > 20) kind = FORAY_SOLDIER;
    else if (workers < worker_goal && n_ore_cells) kind = FORAY_WORKER;
    else kind = FORAY_SOLDIER;
    foray_spawn(acts, kind);
}

void bot_tick(const foray_obs_t *obs, foray_actions_t *acts) {
    bk_begin(obs);
    for (int32_t i = 0; i < obs->n_ore; i++) note_ore(foray_cell(obs->ore[i].x, obs->ore[i].y));
    bk_ore_observe(obs);

    int32_t workers = 0, soldiers = 0, idle = 0, raiders = 0, rear = 0, threats = 0;
    for (int32_t i = 0; i < obs->n_own; i++) {
        const foray_unit_t *u = &obs->own[i];
        int32_t id = u->id < MAX_ID ? u->id : 0;
        if (u->kind == FORAY_WORKER) {
            workers++;
            if (target_of[id]) crowd_add(target_of[id] - 1);
            continue;
        }
        soldiers++;
        if (raider[id]) {
            raiders++;
            rear = foray_max(rear, bk_away[foray_cell(u->x, u->y)]);
        } else if (rally >= 0 && bk_field(rally)[foray_cell(u->x, u->y)] <= 3) {
            idle++;
        }
    }
    for (int32_t e = 0; e < obs->n_enemy; e++) {
        int32_t fc = foray_cell(obs->enemy[e].x, obs->enemy[e].y);
        if (obs->enemy[e].kind == FORAY_SOLDIER && bk_home[fc] <= bk_away[fc] + 2) threats++;
    }

    /* Launch an attack with the idle soldiers when there are enough, or
     * when half the match is gone; keep one back if enemies are about. */
    if (raiders == 0) raid_on = 0;
    int32_t late = obs->tick * 2 >= foray_game.max_ticks && idle >= 3;
    if (!raid_on && (idle >= RAID_SIZE || late) && idle > threats) {
        raid_on = 1;
        int32_t keep = threats ? 1 : 0;
        for (int32_t i = 0; i < obs->n_own; i++) {
            const foray_unit_t *u = &obs->own[i];
            if (u->kind != FORAY_SOLDIER || u->id >= MAX_ID) continue;
            if (keep) { keep--; continue; }
            raider[u->id] = 1;
            raiders++;
        }
    }

    /* Loaded workers first, then soldiers, then the others: each sees the
     * cells the ones before it leave. */
    static int32_t order[FORAY_MAX_UNITS], key[FORAY_MAX_UNITS];
    for (int32_t i = 0; i < obs->n_own; i++) {
        const foray_unit_t *u = &obs->own[i];
        order[i] = i;
        key[i] = u->kind == FORAY_SOLDIER ? 0x20000
               : u->carry >= foray_game.carry_cap ? bk_home[foray_cell(u->x, u->y)]
               : 0x40000 + u->id;
    }
    bk_sort(order, key, obs->n_own);
    for (int32_t j = 0; j < obs->n_own; j++) {
        const foray_unit_t *u = &obs->own[order[j]];
        if (u->kind == FORAY_WORKER) work(obs, acts, u);
        else if (u->id < MAX_ID && raider[u->id]) raid(obs, acts, u, rear);
        else defend(obs, acts, u);
    }
    spawn(obs, acts, workers, soldiers - raiders, threats);
}
