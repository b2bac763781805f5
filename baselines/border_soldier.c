/*
 * border_soldier.c -- the canonical baseline: mine at home, hold the middle.
 *
 * Workers mine the nearest ore in our own half (cells nearer, by walking
 * distance, to our colony than to the enemy's) and carry it home. Soldiers
 * hold posts spread along the middle of the map -- cells just on our side of
 * the line of equal distance to both colonies -- strike anything that stands
 * next to them, and step out at enemies that come within a few cells of
 * their post. The colony keeps about one soldier per two workers.
 */
#include "foray.h"
#include "botkit.h"

#define CHASE_RANGE 4 /* how far from its post a soldier steps out at an enemy */
#define HUNT_RANGE 8  /* how far a soldier goes for an enemy inside our half */
#define MAX_POSTS 12  /* more soldiers double up: each post's BFS field stays cached */

static uint16_t ore_field[FORAY_MAX_CELLS]; /* steps to the nearest own-half ore */
static int32_t sources[FORAY_MAX_CELLS];
static int32_t line[FORAY_MAX_CELLS]; /* the border cells, ordered along the border */
static int32_t n_line;

static int32_t own_half(int32_t c) { return bk_home[c] < bk_away[c]; }

void bot_init(const foray_init_t *game) {
    bk_setup(game);
    /* The border: reachable cells one or two steps nearer to us than to the
     * enemy, sorted across the axis between the colonies (insertion sort:
     * once, at init). */
    int32_t ax = game->enemy_colony_x - game->colony_x, ay = game->enemy_colony_y - game->colony_y;
    int32_t area = game->width * game->height;
    n_line = 0;
    for (int32_t c = 0; c < area; c++) {
        if (bk_home[c] == FORAY_FAR || bk_away[c] == FORAY_FAR) continue;
        int32_t gap = (int32_t)bk_away[c] - (int32_t)bk_home[c];
        if (gap < 1 || gap > 2) continue;
        int32_t key = (c % game->width) * ay - (c / game->width) * ax, j = n_line++;
        while (j > 0) {
            int32_t p = line[j - 1];
            if ((p % game->width) * ay - (p / game->width) * ax <= key) break;
            line[j] = p;
            j--;
        }
        line[j] = c;
    }
}

/* The post of soldier i of k: spread along the border, leaving out its
 * ends (the map's corners, far from any short way between the colonies). */
static int32_t post_of(int32_t i, int32_t k) {
    int32_t lo = n_line / 10, span = n_line - 2 * lo;
    return line[lo + (2 * i + 1) * span / (2 * k)];
}

static void spawn(const foray_obs_t *obs, foray_actions_t *acts, int32_t workers, int32_t soldiers) {
    (void)obs;
    if (workers < 4) foray_spawn(acts, FORAY_WORKER);
    else if (soldiers < (workers + 1) / 2) foray_spawn(acts, FORAY_SOLDIER);
    else if (workers < 12) foray_spawn(acts, FORAY_WORKER);
    else foray_spawn(acts, FORAY_SOLDIER);
}

/* The nearest visible enemy that came within CHASE_RANGE of the post, or
 * that crossed into our half within HUNT_RANGE of the soldier; -1 if none. */
static int32_t intruder(const foray_obs_t *obs, const foray_unit_t *u, int32_t post) {
    int32_t px = post % foray_game.width, py = post / foray_game.width, best = -1, best_d = 1 << 30;
    for (int32_t e = 0; e < obs->n_enemy; e++) {
        const foray_unit_t *f = &obs->enemy[e];
        int32_t d = foray_manhattan(u->x, u->y, f->x, f->y);
        if (foray_chebyshev(f->x, f->y, px, py) > CHASE_RANGE &&
            !(own_half(foray_cell(f->x, f->y)) && d <= HUNT_RANGE))
            continue;
        if (d < best_d) best_d = d, best = e;
    }
    return best;
}

void bot_tick(const foray_obs_t *obs, foray_actions_t *acts) {
    bk_begin(obs);
    bk_ore_observe(obs);
    const int32_t area = foray_game.width * foray_game.height;

    int32_t n = 0, workers = 0, soldiers = 0;
    for (int32_t c = 0; c < area; c++)
        if (bk_ore[c] > 0 && own_half(c)) sources[n++] = c;
    foray_bfs(ore_field, sources, n);
    for (int32_t i = 0; i < obs->n_own; i++) {
        if (obs->own[i].kind == FORAY_WORKER) workers++;
        else soldiers++;
    }

    int32_t k = 0, posts = foray_min(soldiers, MAX_POSTS); /* soldier k holds post k % posts */
    static int32_t order[FORAY_MAX_UNITS];
    bk_simple_order(obs, ore_field, order);
    for (int32_t j = 0; j < obs->n_own; j++) {
        const foray_unit_t *u = &obs->own[order[j]];
        int32_t c = foray_cell(u->x, u->y);
        if (foray_acted(acts, u)) continue; /* shoved aside by a loaded worker */
        if (u->kind == FORAY_WORKER) {
            bk_simple_worker(acts, u, ore_field);
            continue;
        }
        int32_t post = n_line ? post_of(k++ % posts, posts) : foray_cell(foray_game.colony_x, foray_game.colony_y);
        if (bk_strike(acts, u, 0)) continue;
        int32_t e = intruder(obs, u, post);
        if (e >= 0) bk_toward(acts, u, obs->enemy[e].x, obs->enemy[e].y);
        else if (c != post) bk_go_to(acts, u, post, BK_WAIT);
    }
    spawn(obs, acts, workers, soldiers);
}
