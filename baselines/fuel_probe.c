/*
 * fuel_probe.c -- the hidden, stronger reference baseline.
 *
 * Economy: each worker keeps a target ore cell, chosen by the trip home it
 * will repeat, plus charges for crowding and for ore already spoken for, and
 * walks to it on a BFS field cached per target (the terrain never changes).
 * It mines any good cell it stands next to, banks when full with right of
 * way over outbound workers, and steps away from enemy soldiers (unless it
 * carries ore and home is a few steps away: then it banks first).
 * Defence: idle soldiers stand by the worked ore nearest the enemy; enemies
 * on our side of the middle are hunted down one BFS field from all of them
 * (by every defender, however far, once an enemy soldier comes near one of
 * our workers), and strikes focus on what they can kill. A soldier that
 * keeps stepping at a cell an enemy steps at too (rules §6.4: neither enters)
 * holds and lets the enemy come into reach. The colony builds
 * soldiers to match the enemy soldiers it has seen lately, and at once when
 * besieged.
 * Attack: waves march on the enemy colony, the front waiting for the rear,
 * and spread round its faces. A big wave goes when eight healthy soldiers
 * are home; a single soldier as soon as an enemy sends soldiers our way (its
 * own colony is then thin); small ones once half the match is gone. As many
 * soldiers as the enemy sent to our side lately (up to four) stay home.
 * Fuel: fields are computed at init or once per new target (a few a tick at
 * most) and reused; a tick otherwise looks only at units and listed ore.
 */
#define BK_FIELD_SLOTS 40
#include "foray.h"
#include "botkit.h"

#define MAX_ID 4096       /* per-unit memory for ids below this */
/* Economy. */
#define WORKER_AREA 120   /* one worker beyond six per this many cells... */
#define WORKER_MAX 14     /* ...up to this many */
#define CROWD_COST 4      /* extra steps charged per worker already on a target */
#define SPOKEN_COST 20    /* extra steps for ore the workers sent there will take */
#define ENEMY_HALF_COST 8 /* extra steps for ore nearer the enemy */
#define FLEE_RANGE 2      /* a worker steps away from enemy soldiers this close */
#define HOME_DASH 3       /* ...unless it carries ore and is this close to home */
/* Defence. */
#define GUARD_RATIO 3     /* while building workers, a soldier per this many */
#define FOE_MEMORY 80     /* ticks an enemy soldier sighting counts */
#define FOE_MARGIN 1      /* soldiers at home beyond the enemy soldiers seen lately */
#define INTRUDER_SLACK 1  /* enemies this far past the middle count as intruders */
#define CHASE_STEPS 12    /* defenders go for intruders this many steps away */
#define HOLD_AFTER 2      /* ticks stuck at a contested cell before a soldier holds */
#define MENACE_RANGE 4    /* enemy soldiers this close to a worker call every defender */
#define RALLY_STEPS 5     /* with no worked ore, defenders wait this far out */
/* Attack. */
#define RAID_SIZE 8       /* healthy soldiers at home that set off an attack */
#define COUNTER_SIZE 1    /* the wave that answers enemy soldiers on our side */
#define LATE_WAVE 3       /* the wave once half the match is gone */
#define RAID_REINFORCE 2  /* the wave that follows an attack under way */
#define KEEP_MAX 3        /* at most this many kept home against intruders in sight */
#define KEEP_RAIDED 4     /* ...and up to this many against those that came lately */
#define RAID_SLACK 3      /* the front waits while further ahead than this */
#define INTRUSION_MEMORY 50 /* ticks an intrusion keeps the answer wave small */

static int32_t target_of[MAX_ID]; /* worker id -> ore cell + 1 (0: none) */
static uint8_t raider[MAX_ID];    /* soldier id -> marching on the enemy */
static int32_t ore_cells[FORAY_MAX_CELLS], n_ore_cells;
static uint8_t listed[FORAY_MAX_CELLS]; /* in ore_cells */
static int32_t crowd[FORAY_MAX_CELLS], crowd_stamp[FORAY_MAX_CELLS];
static int32_t rally;       /* where defenders wait while no ore is worked */
static uint16_t threat_field[FORAY_MAX_CELLS]; /* steps to the nearest intruder */
static int32_t intruders[FORAY_MAX_UNITS], n_intruders;
static int32_t last_intrusion; /* 1 + the last tick an enemy soldier was on our side */
static int32_t menace;      /* an enemy soldier on our side is close to our workers */
static int32_t siege;       /* an enemy soldier is at our colony: every defender goes */
static int32_t guard_post;  /* where idle defenders wait: the worked ore nearest the enemy */
static int32_t raid_on;     /* an attack is under way */
static int32_t worker_goal; /* workers to build before soldiers only */
/* Per-unit memory of last tick's move, to see contested cells (rules §6.4: a
 * cell two units step into is entered by neither, every tick if both insist). */
static int32_t last_tick[MAX_ID], last_pos[MAX_ID], last_aim[MAX_ID], stuck_n[MAX_ID];

/* Index of a unit into the per-id tables (ids past MAX_ID share slot 0). */
static int32_t slot(const foray_unit_t *u) { return u->id > 0 && u->id < MAX_ID ? u->id : 0; }

/* u stepped at an empty cell last tick and is still where it was: the cell
 * is contested. Returns the cell (and counts the ticks), or -1. */
static int32_t contested(const foray_obs_t *obs, const foray_unit_t *u) {
    int32_t id = slot(u), c = foray_cell(u->x, u->y);
    if (!id || last_tick[id] != obs->tick || last_pos[id] != c || last_aim[id] < 0) {
        if (id) stuck_n[id] = 0;
        return -1;
    }
    int32_t a = last_aim[id], w = foray_game.width, ax = a % w, ay = a / w;
    if (bk_own_on(ax, ay) >= 0 || bk_foe_on(ax, ay) >= 0) {
        stuck_n[id] = 0;
        return -1;
    }
    for (int32_t d = 1; d <= 4; d++)
        if (bk_foe_on(ax + FORAY_DX[d], ay + FORAY_DY[d]) >= 0) {
            stuck_n[id]++;
            return a;
        }
    stuck_n[id] = 0;
    return -1;
}

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
    worker_goal = foray_max(6, foray_min(WORKER_MAX, 6 + area / WORKER_AREA));
}

static int32_t crowd_at(int32_t c) { return crowd_stamp[c] == bk_stamp ? crowd[c] : 0; }
static void crowd_add(int32_t c) {
    if (crowd_stamp[c] != bk_stamp) crowd_stamp[c] = bk_stamp, crowd[c] = 0;
    crowd[c]++;
}

/* The best ore cell for a worker at c0 (other than `skip`): a short trip
 * home, not crowded, and not already spoken for by the loads of the workers
 * sent there. */
static int32_t pick_target(int32_t c0, int32_t skip) {
    int32_t best = -1, best_cost = 1 << 30, w = foray_game.width;
    int32_t load = foray_max(1, foray_game.carry_cap);
    for (int32_t k = 0; k < n_ore_cells; k++) {
        int32_t c = ore_cells[k];
        if (c == skip || bk_ore[c] <= 0 || bk_home[c] == FORAY_FAR) continue;
        int32_t crowd = crowd_at(c);
        int32_t cost = 2 * bk_home[c] + CROWD_COST * crowd + foray_manhattan(c % w, c / w, c0 % w, c0 / w) / 2;
        if (crowd * load >= bk_ore[c]) cost += SPOKEN_COST;
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

/* Step u away from enemy soldiers: to the free neighbour farthest from the
 * nearest of them, nearer home on ties. Returns 1 if it moved. */
static int32_t evade(const foray_obs_t *obs, foray_actions_t *acts, const foray_unit_t *u) {
    int32_t best_dir = 0, best_score = -(1 << 30);
    for (int32_t d = 0; d <= 4; d++) {
        int32_t nx = u->x + FORAY_DX[d], ny = u->y + FORAY_DY[d];
        if (d && !bk_free(nx, ny)) continue;
        int32_t gap = 1 << 20;
        for (int32_t e = 0; e < obs->n_enemy; e++)
            if (obs->enemy[e].kind == FORAY_SOLDIER)
                gap = foray_min(gap, foray_manhattan(nx, ny, obs->enemy[e].x, obs->enemy[e].y));
        int32_t score = foray_min(gap, 4) * 4096 - bk_home[foray_cell(nx, ny)];
        if (score > best_score) best_score = score, best_dir = d;
    }
    return best_dir && bk_move(acts, u, best_dir);
}

static void work(const foray_obs_t *obs, foray_actions_t *acts, const foray_unit_t *u) {
    int32_t c = foray_cell(u->x, u->y);
    int32_t danger = soldier_near(obs, u->x, u->y, FLEE_RANGE);
    if (u->carry > 0 && bk_is_home(u->x, u->y) && (u->carry >= foray_game.carry_cap || danger)) {
        foray_deposit(acts, u);
        return;
    }
    if (danger) {
        /* Loaded and close to home: bank it rather than run (a worker lives
         * through one blow), stepping where no enemy soldier can strike. */
        if (u->carry > 0 && bk_home[c] <= HOME_DASH && u->hp > foray_game.soldier_attack) {
            for (int32_t d = 1; d <= 4; d++) {
                int32_t nx = u->x + FORAY_DX[d], ny = u->y + FORAY_DY[d];
                if (!bk_free(nx, ny) || bk_home[foray_cell(nx, ny)] >= bk_home[c]) continue;
                if (soldier_near(obs, nx, ny, 1)) continue;
                if (bk_move(acts, u, d)) return;
            }
        }
        evade(obs, acts, u);
        return;
    }
    if (u->carry >= foray_game.carry_cap) {
        bk_follow_mode(acts, u, bk_home, BK_PUSH);
        return;
    }
    if (bk_mine_near(acts, u)) return;
    int32_t x = contested(obs, u);
    if (x >= 0) bk_aimed[x] = bk_stamp; /* an enemy steps there too: go round */
    int32_t id = slot(u), t = target_of[id] - 1;
    if (t >= 0 && bk_ore[t] > 0 && bk_steps(t, c) <= 1) t = pick_target(c, t); /* it gave nothing */
    else if (t < 0 || bk_ore[t] <= 0) t = pick_target(c, -1);
    else t = -2; /* keep it */
    if (t != -2) {
        target_of[id] = t + 1;
        if (t >= 0) crowd_add(t);
    }
    t = target_of[id] - 1;
    if (t < 0) {
        if (u->carry > 0) bk_go_home(acts, u); /* no ore left anywhere we know */
        return;
    }
    bk_go_to(acts, u, t, BK_YIELD); /* give way to loaded workers */
}

/* A soldier stepping at a cell an enemy steps at too: hold, and let the
 * enemy come into reach (none of ours takes the cell meanwhile). */
static int32_t hold_contested(foray_actions_t *acts, const foray_unit_t *u) {
    int32_t x = contested(bk_obs, u);
    if (x < 0 || stuck_n[slot(u)] < HOLD_AFTER) return 0;
    bk_aimed[x] = bk_stamp;
    return foray_act(acts, u, FORAY_NOOP, 0);
}

static void defend(foray_actions_t *acts, const foray_unit_t *u) {
    if (bk_strike(acts, u, 0)) return;
    if (hold_contested(acts, u)) return;
    int32_t c = foray_cell(u->x, u->y);
    if (n_intruders && (threat_field[c] <= CHASE_STEPS || siege || menace))
        bk_follow_mode(acts, u, threat_field, BK_PUSH);
    else if (guard_post >= 0 && bk_steps(guard_post, c) > 1) bk_go_to(acts, u, guard_post, BK_WAIT);
}

static void raid(const foray_obs_t *obs, foray_actions_t *acts, const foray_unit_t *u, int32_t rear) {
    /* Hit the colony first unless an enemy soldier stands next to us and the
     * colony will not fall to this blow. */
    int32_t colony_first = !soldier_near(obs, u->x, u->y, 1) ||
                           (obs->enemy_colony_hp >= 0 && obs->enemy_colony_hp <= foray_game.soldier_attack);
    if (bk_strike(acts, u, colony_first)) return;
    if (hold_contested(acts, u)) return;
    int32_t here = bk_away[foray_cell(u->x, u->y)];
    if (here > 6 && here + RAID_SLACK < rear) return; /* let the rear catch up */
    if (here <= 4) {
        /* Close by, make for a free face of the colony rather than queue
         * behind the raider in front: every face is another blow a tick. */
        int32_t best = -1, best_d = 1 << 30, c = foray_cell(u->x, u->y);
        for (int32_t d = 1; d <= 4; d++) {
            int32_t fx = foray_game.enemy_colony_x + FORAY_DX[d], fy = foray_game.enemy_colony_y + FORAY_DY[d];
            if (!foray_passable(fx, fy) || bk_own_on(fx, fy) >= 0) continue;
            int32_t steps = bk_steps(foray_cell(fx, fy), c);
            if (steps < best_d) best_d = steps, best = foray_cell(fx, fy);
        }
        if (best >= 0) {
            bk_go_to(acts, u, best, BK_YIELD);
            return;
        }
    }
    bk_follow(acts, u, bk_away);
}

/* Enemy soldiers we have seen lately, wherever: they will come. Those seen
 * on our side of the middle lately (n_came) mark an aggressive enemy. */
static int32_t foe_seen[MAX_ID], foe_ids[MAX_ID], n_foe_ids;
static int32_t foe_came[MAX_ID], n_came;

static int32_t recent_foes(const foray_obs_t *obs) {
    for (int32_t e = 0; e < obs->n_enemy; e++) {
        const foray_unit_t *f = &obs->enemy[e];
        if (f->kind != FORAY_SOLDIER || f->id <= 0 || f->id >= MAX_ID) continue;
        if (!foe_seen[f->id]) foe_ids[n_foe_ids++] = f->id;
        foe_seen[f->id] = obs->tick + 1;
        int32_t fc = foray_cell(f->x, f->y);
        if (bk_home[fc] <= bk_away[fc] + INTRUDER_SLACK) foe_came[f->id] = obs->tick + 1;
    }
    int32_t n = 0;
    n_came = 0;
    for (int32_t k = 0; k < n_foe_ids; k++) {
        int32_t id = foe_ids[k];
        n += foe_seen[id] + FOE_MEMORY > obs->tick;
        n_came += foe_came[id] && foe_came[id] + FOE_MEMORY > obs->tick;
    }
    return n;
}

static void spawn(const foray_obs_t *obs, foray_actions_t *acts, int32_t workers, int32_t guards,
                  int32_t foes) {
    int32_t kind;
    if (soldier_near(obs, foray_game.colony_x, foray_game.colony_y, 3)) kind = FORAY_SOLDIER;
    else if (workers < 4) kind = FORAY_WORKER;
    else if (guards < foes + FOE_MARGIN && obs->tick > 15) kind = FORAY_SOLDIER;
    else if (workers < worker_goal && n_ore_cells)
        kind = guards * GUARD_RATIO < workers - 3 ? FORAY_SOLDIER : FORAY_WORKER;
    else kind = FORAY_SOLDIER;
    foray_spawn(acts, kind);
}

void bot_tick(const foray_obs_t *obs, foray_actions_t *acts) {
    bk_begin(obs);
    for (int32_t i = 0; i < obs->n_ore; i++) note_ore(foray_cell(obs->ore[i].x, obs->ore[i].y));
    bk_ore_observe(obs);

    int32_t workers = 0, soldiers = 0, healthy = 0, raiders = 0, threats = 0;
    static int32_t rear[8]; /* per wave: the farthest raider's steps to the enemy colony */
    for (int32_t k = 0; k < 8; k++) rear[k] = 0;
    int32_t foes = recent_foes(obs);
    /* Guard the worked ore nearest the enemy, else the rally point. */
    guard_post = rally;
    for (int32_t i = 0, best = 1 << 30; i < obs->n_own; i++) {
        int32_t t = target_of[slot(&obs->own[i])] - 1;
        if (obs->own[i].kind != FORAY_WORKER || t < 0 || bk_away[t] >= best) continue;
        best = bk_away[t];
        guard_post = t;
    }
    for (int32_t i = 0; i < obs->n_own; i++) {
        const foray_unit_t *u = &obs->own[i];
        int32_t id = slot(u);
        if (u->kind == FORAY_WORKER) {
            workers++;
            if (target_of[id]) crowd_add(target_of[id] - 1);
            continue;
        }
        soldiers++;
        if (id && raider[id]) {
            raiders++;
            rear[raider[id] & 7] = foray_max(rear[raider[id] & 7], bk_away[foray_cell(u->x, u->y)]);
        } else if (u->hp > foray_game.soldier_attack) {
            healthy++;
        }
    }
    /* Intruders: enemy units on our side of the middle. One BFS from all of
     * them serves every defender (and costs nothing while there are none). */
    n_intruders = 0;
    menace = 0;
    for (int32_t e = 0; e < obs->n_enemy; e++) {
        int32_t fc = foray_cell(obs->enemy[e].x, obs->enemy[e].y);
        if (bk_home[fc] > bk_away[fc] + INTRUDER_SLACK) continue;
        intruders[n_intruders++] = fc;
        if (obs->enemy[e].kind != FORAY_SOLDIER) continue;
        threats++;
        for (int32_t i = 0; i < obs->n_own && !menace; i++)
            menace = obs->own[i].kind == FORAY_WORKER &&
                     foray_manhattan(obs->own[i].x, obs->own[i].y, obs->enemy[e].x, obs->enemy[e].y) <= MENACE_RANGE;
    }
    if (n_intruders) foray_bfs(threat_field, intruders, n_intruders);
    siege = soldier_near(obs, foray_game.colony_x, foray_game.colony_y, 3);

    /* Send a wave at the enemy colony when enough healthy soldiers are home
     * (fewer once half the match is gone, or to reinforce a raid), keeping
     * back as many as there are enemy soldiers on our side. */
    int32_t keep = foray_min(threats, KEEP_MAX);
    /* Against an enemy that sends soldiers over, hold as many at home as
     * came lately: they come again, and a colony falls in a few blows. */
    keep = foray_max(keep, foray_min(n_came, KEEP_RAIDED));
    /* An enemy that sends soldiers at us leaves its own colony thin: answer
     * with a smaller, earlier wave. */
    if (threats) last_intrusion = obs->tick + 1;
    int32_t raided = last_intrusion && last_intrusion + INTRUSION_MEMORY > obs->tick;
    int32_t wave = raid_on ? RAID_REINFORCE
                 : obs->tick * 2 >= foray_game.max_ticks ? LATE_WAVE
                 : raided ? COUNTER_SIZE : RAID_SIZE;
    if (healthy - keep >= wave) {
        raid_on++;
        for (int32_t i = 0; i < obs->n_own; i++) {
            const foray_unit_t *u = &obs->own[i];
            if (u->kind != FORAY_SOLDIER || !slot(u) || raider[slot(u)] || u->hp <= foray_game.soldier_attack)
                continue;
            if (keep) {
                keep--;
                continue;
            }
            raider[slot(u)] = (uint8_t)(1 + (raid_on & 7));
            raiders++;
        }
    }
    if (raiders == 0) raid_on = 0;

    /* Loaded workers first, then soldiers, then the others: each sees the
     * cells the ones before it leave. */
    static int32_t order[FORAY_MAX_UNITS], key[FORAY_MAX_UNITS];
    for (int32_t i = 0; i < obs->n_own; i++) {
        const foray_unit_t *u = &obs->own[i];
        order[i] = i;
        int32_t c = foray_cell(u->x, u->y), t = target_of[slot(u)] - 1;
        if (u->kind == FORAY_SOLDIER) key[i] = 0x20000;
        else if (u->carry >= foray_game.carry_cap) key[i] = bk_home[c];
        else key[i] = 0x40000 + (t >= 0 ? bk_steps(t, c) : 0);
    }
    bk_sort(order, key, obs->n_own);
    for (int32_t j = 0; j < obs->n_own; j++) {
        const foray_unit_t *u = &obs->own[order[j]];
        if (foray_acted(acts, u)) continue; /* shoved aside by a loaded worker */
        if (u->kind == FORAY_WORKER) work(obs, acts, u);
        else if (raider[slot(u)]) raid(obs, acts, u, rear[raider[slot(u)] & 7]);
        else defend(acts, u);
    }
    spawn(obs, acts, workers, soldiers - raiders, foes);

    /* Remember where each unit stood and stepped at. */
    for (int32_t i = 0; i < obs->n_own; i++) {
        int32_t id = slot(&obs->own[i]);
        last_tick[id] = obs->tick + 1;
        last_pos[id] = foray_cell(obs->own[i].x, obs->own[i].y);
        last_aim[id] = -1;
    }
    for (int32_t k = 0; k < acts->n; k++) {
        const foray_action_t *r = &acts->rec[k];
        if (r->op != FORAY_MOVE || r->unit_id <= 0 || r->unit_id >= MAX_ID) continue;
        last_aim[r->unit_id] = last_pos[r->unit_id] + FORAY_DX[r->arg] + FORAY_DY[r->arg] * foray_game.width;
    }
}
