/*
 * foray.h -- the Foray controller contract (ABI version 1) in code.
 *
 * A controller is one C file that includes this header and defines two hooks:
 *
 *     void bot_init(const foray_init_t *game);            once, before tick 0
 *     void bot_tick(const foray_obs_t *obs, foray_actions_t *acts);  every tick
 *
 * The header defines the three exports the host calls (foray_buffer,
 * foray_init, foray_tick), decodes the INIT and OBS messages into the structs
 * below and encodes the actions the hooks emitted. The emitters refuse any
 * action the contract would punish (an id off the roster, a second action for
 * a unit, an argument out of range, a colony doing something but SPAWN), so a
 * bot built on them cannot forfeit with `invalid_action`.
 *
 * Everything is in the controller's own frame: its colony is always at the
 * same place, and directions are 0 HERE, 1 NORTH (y-1), 2 EAST (x+1),
 * 3 SOUTH (y+1), 4 WEST (x-1).
 *
 * There is no libc and no allocator: keep state in static arrays. Build with
 *     python -m ziglang cc -target wasm32-freestanding -O2 -nostdlib \
 *         -fno-stack-protector -Wl,--no-entry -Wl,--strip-all -o bot.wasm bot.c
 * Include this header in exactly one C file.
 */
#ifndef FORAY_H
#define FORAY_H

#include <stddef.h>
#include <stdint.h>

/* ------------------------------------------------------------------ limits */

#define FORAY_ABI_VERSION 1
#define FORAY_BUFFER_BYTES 65536
#define FORAY_MAX_SIDE 64
#define FORAY_MAX_CELLS (FORAY_MAX_SIDE * FORAY_MAX_SIDE)
#define FORAY_MAX_UNITS 64 /* the largest max_units a case may set */

/* ----------------------------------------------------------- wire layout */

/* INIT: 24 words, the terrain bytes at byte 96 (row-major, 0 open 1 rock),
 * zero padding to a multiple of 4, then n_ore records of 3 words. */
enum {
    FORAY_INIT_ABI_VERSION = 0,
    FORAY_INIT_WIDTH = 1,
    FORAY_INIT_HEIGHT = 2,
    FORAY_INIT_MAX_TICKS = 3,
    FORAY_INIT_SEED = 4,
    FORAY_INIT_COLONY_X = 5,
    FORAY_INIT_COLONY_Y = 6,
    FORAY_INIT_ENEMY_COLONY_X = 7,
    FORAY_INIT_ENEMY_COLONY_Y = 8,
    FORAY_INIT_START_ENERGY = 9, /* words 9..19: the rules' constants */
    FORAY_INIT_MAX_UNITS = 19,
    FORAY_INIT_FUEL_PER_TICK = 20,
    FORAY_INIT_MAX_MEMORY_BYTES = 21,
    FORAY_INIT_N_ORE = 22,
    FORAY_INIT_RESERVED = 23,
    FORAY_INIT_WORDS = 24,
    FORAY_INIT_TERRAIN_BYTE = 96
};

/* OBS: 16 words, then n_own and n_enemy unit records of 6 words, then n_ore
 * ore records of 3 words. */
enum {
    FORAY_OBS_TICK = 0,
    FORAY_OBS_BANKED = 1,
    FORAY_OBS_ENERGY = 2,
    FORAY_OBS_COLONY_HP = 3,
    FORAY_OBS_ENEMY_BANKED = 4,
    FORAY_OBS_ENEMY_COLONY_HP = 5, /* -1 while the enemy colony is unseen */
    FORAY_OBS_N_OWN = 6,
    FORAY_OBS_N_ENEMY = 7,
    FORAY_OBS_N_ORE = 8,
    FORAY_OBS_LAST_FUEL = 9,
    FORAY_OBS_WORDS = 16
};

#define FORAY_UNIT_WORDS 6   /* id, kind, x, y, hp, carry */
#define FORAY_ORE_WORDS 3    /* x, y, amount */
#define FORAY_ACTION_WORDS 3 /* unit_id, op, arg */

/* Ops, unit kinds, directions. */
enum { FORAY_NOOP = 0, FORAY_MOVE = 1, FORAY_ATTACK = 2, FORAY_MINE = 3, FORAY_DEPOSIT = 4, FORAY_SPAWN = 5 };
enum { FORAY_WORKER = 1, FORAY_SOLDIER = 2 };
enum { FORAY_HERE = 0, FORAY_NORTH = 1, FORAY_EAST = 2, FORAY_SOUTH = 3, FORAY_WEST = 4 };
#define FORAY_COLONY_ID 0 /* the id the colony acts under (SPAWN / NOOP only) */

/* ------------------------------------------------------------- the structs */

typedef struct { int32_t id, kind, x, y, hp, carry; } foray_unit_t;
typedef struct { int32_t x, y, amount; } foray_ore_t;
typedef struct { int32_t unit_id, op, arg; } foray_action_t;

/* The INIT message. The first 24 fields are the 24 words, in order. */
typedef struct {
    int32_t abi_version, width, height, max_ticks;
    uint32_t seed;
    int32_t colony_x, colony_y, enemy_colony_x, enemy_colony_y;
    int32_t start_energy, worker_cost, soldier_cost, worker_hp, soldier_hp, soldier_attack,
        carry_cap, colony_hp, unit_vision, colony_vision, max_units;
    int32_t fuel_per_tick, max_memory_bytes, n_ore, reserved;
    /* Copies kept for the whole match (the I/O buffer is overwritten). */
    const uint8_t *terrain;  /* width*height bytes, index y*width+x: 0 open, 1 rock */
    const foray_ore_t *ore;  /* n_ore cells holding ore at tick 0, sorted by (y, x) */
} foray_init_t;

/* The OBS message. The unit and ore arrays point into the I/O buffer: they are
 * valid during bot_tick only (copy what you want to keep). */
typedef struct {
    int32_t tick, banked, energy, colony_hp, enemy_banked, enemy_colony_hp;
    int32_t n_own, n_enemy, n_ore, last_fuel;
    const foray_unit_t *own;   /* your living units, sorted by id: the roster */
    const foray_unit_t *enemy; /* visible enemy units, sorted by id */
    const foray_ore_t *ore;    /* visible cells holding ore, sorted by (y, x) */
} foray_obs_t;

/* The actions of one tick. Emit them with the foray_* emitters below. */
typedef struct {
    int32_t n;
    foray_action_t rec[FORAY_MAX_UNITS + 1];
    uint8_t used[FORAY_MAX_UNITS + 1]; /* [0] the colony, [1 + i] obs->own[i] */
    const foray_obs_t *obs;
} foray_actions_t;

/* The hooks a controller defines. */
void bot_init(const foray_init_t *game);
void bot_tick(const foray_obs_t *obs, foray_actions_t *acts);

/* --------------------------------------------------------------- the state */

/* Helpers a bot may not use must not trip -Wunused under -Werror. */
#define FORAY_API static __attribute__((unused))

FORAY_API uint8_t foray_io[FORAY_BUFFER_BYTES] __attribute__((aligned(16)));
FORAY_API uint8_t foray_terrain_copy[FORAY_MAX_CELLS];
FORAY_API foray_ore_t foray_ore_copy[FORAY_MAX_CELLS];
FORAY_API foray_init_t foray_game; /* the match, readable by bots and helpers */
FORAY_API uint8_t foray_walkable[FORAY_MAX_CELLS]; /* 1: open and not a colony */

/* ----------------------------------------------------------- small helpers */

FORAY_API const int32_t FORAY_DX[5] = {0, 0, 1, 0, -1};
FORAY_API const int32_t FORAY_DY[5] = {0, -1, 0, 1, 0};

FORAY_API inline int32_t foray_abs(int32_t v) { return v < 0 ? -v : v; }
FORAY_API inline int32_t foray_min(int32_t a, int32_t b) { return a < b ? a : b; }
FORAY_API inline int32_t foray_max(int32_t a, int32_t b) { return a > b ? a : b; }
FORAY_API inline int32_t foray_manhattan(int32_t x0, int32_t y0, int32_t x1, int32_t y1) {
    return foray_abs(x0 - x1) + foray_abs(y0 - y1);
}
FORAY_API inline int32_t foray_chebyshev(int32_t x0, int32_t y0, int32_t x1, int32_t y1) {
    return foray_max(foray_abs(x0 - x1), foray_abs(y0 - y1));
}
/* The direction reversed: N<->S, E<->W, HERE stays. */
FORAY_API inline int32_t foray_opposite(int32_t dir) { return dir == 0 ? 0 : ((dir + 1) & 3) + 1; }
/* The direction from (x0,y0) to the 4-adjacent (x1,y1) or the same cell (0); -1 otherwise. */
FORAY_API inline int32_t foray_dir_to(int32_t x0, int32_t y0, int32_t x1, int32_t y1) {
    for (int32_t d = 0; d < 5; d++)
        if (x0 + FORAY_DX[d] == x1 && y0 + FORAY_DY[d] == y1) return d;
    return -1;
}

FORAY_API inline int32_t foray_in_bounds(int32_t x, int32_t y) {
    return x >= 0 && y >= 0 && x < foray_game.width && y < foray_game.height;
}
FORAY_API inline int32_t foray_cell(int32_t x, int32_t y) { return y * foray_game.width + x; }
FORAY_API inline int32_t foray_is_colony(int32_t x, int32_t y) {
    return (x == foray_game.colony_x && y == foray_game.colony_y) ||
           (x == foray_game.enemy_colony_x && y == foray_game.enemy_colony_y);
}
/* Whether a unit may stand on (x, y): on the map, open, not a colony. */
FORAY_API inline int32_t foray_passable(int32_t x, int32_t y) {
    return foray_in_bounds(x, y) && foray_walkable[foray_cell(x, y)];
}

/* A small seeded PRNG (xorshift32 behind a splitmix32 seeding). */
typedef struct { uint32_t s; } foray_rng_t;
FORAY_API inline void foray_rng_seed(foray_rng_t *r, uint32_t seed, uint32_t stream) {
    uint32_t z = seed + 0x9E3779B9u * (stream + 1u);
    z = (z ^ (z >> 16)) * 0x85EBCA6Bu;
    z = (z ^ (z >> 13)) * 0xC2B2AE35u;
    z ^= z >> 16;
    r->s = z ? z : 0x6D2B79F5u; /* xorshift must not start at 0 */
}
FORAY_API inline uint32_t foray_rng_next(foray_rng_t *r) {
    uint32_t x = r->s;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return r->s = x;
}
/* Uniform-enough integer in 0..n-1 (n >= 1). */
FORAY_API inline int32_t foray_rng_below(foray_rng_t *r, int32_t n) {
    return n <= 1 ? 0 : (int32_t)(foray_rng_next(r) % (uint32_t)n);
}
/* Seeded from the match seed at init; both sides get the same seed. */
FORAY_API foray_rng_t foray_rng;

/* --------------------------------------------------- BFS distance fields */

#define FORAY_FAR 0xFFFFu /* unreachable */
FORAY_API int32_t foray_bfs_queue[FORAY_MAX_CELLS];

/* Fill dist[width*height] with the 4-connected step count from the nearest of
 * the n_src source cells (indices y*width+x; a source may be a colony or rock
 * cell: it gets 0 but nothing is entered through it). Units walk only on
 * passable cells, so from the own colony as the source, dist == 1 marks the
 * cells where a worker can deposit. */
FORAY_API void foray_bfs(uint16_t *dist, const int32_t *src, int32_t n_src) {
    const int32_t w = foray_game.width, area = w * foray_game.height;
    for (int32_t i = 0; i < area; i++) dist[i] = FORAY_FAR;
    int32_t head = 0, tail = 0;
    for (int32_t k = 0; k < n_src; k++) {
        int32_t c = src[k];
        if (c >= 0 && c < area && dist[c] != 0) {
            dist[c] = 0;
            foray_bfs_queue[tail++] = c;
        }
    }
    /* Unrolled over the four neighbours: this loop is most of a bot's fuel. */
#define FORAY_BFS_VISIT(n)                                         \
    if (foray_walkable[n] && dist[n] == FORAY_FAR) {                \
        dist[n] = nd;                                              \
        foray_bfs_queue[tail++] = n;                               \
    }
    while (head < tail) {
        int32_t c = foray_bfs_queue[head++];
        int32_t x = c % w;
        uint16_t nd = (uint16_t)(dist[c] + 1);
        if (c >= w) FORAY_BFS_VISIT(c - w)
        if (x + 1 < w) FORAY_BFS_VISIT(c + 1)
        if (c + w < area) FORAY_BFS_VISIT(c + w)
        if (x > 0) FORAY_BFS_VISIT(c - 1)
    }
#undef FORAY_BFS_VISIT
}

FORAY_API inline void foray_bfs_from(uint16_t *dist, int32_t x, int32_t y) {
    int32_t c = foray_cell(x, y);
    foray_bfs(dist, &c, 1);
}

/* A direction from (x, y) to a passable neighbour with a smaller dist, the
 * smallest first; 0 if there is none (already at a minimum). */
FORAY_API int32_t foray_step_down(const uint16_t *dist, int32_t x, int32_t y) {
    int32_t best = 0;
    uint32_t best_d = dist[foray_cell(x, y)];
    for (int32_t d = 1; d <= 4; d++) {
        int32_t nx = x + FORAY_DX[d], ny = y + FORAY_DY[d];
        if (!foray_passable(nx, ny)) continue;
        uint32_t nd = dist[foray_cell(nx, ny)];
        if (nd < best_d) {
            best_d = nd;
            best = d;
        }
    }
    return best;
}

/* ----------------------------------------------------------- the emitters */

/* Record an action for one of this tick's units (u must point into
 * obs->own). Returns 1 if recorded; 0 if refused because the unit already has
 * an action, is not on the roster, or the op or arg is malformed. */
FORAY_API int32_t foray_act(foray_actions_t *a, const foray_unit_t *u, int32_t op, int32_t arg) {
    const foray_obs_t *o = a->obs;
    if (u < o->own || u >= o->own + o->n_own) return 0;
    int32_t slot = 1 + (int32_t)(u - o->own);
    if (a->used[slot]) return 0;
    switch (op) {
    case FORAY_NOOP:
    case FORAY_DEPOSIT: if (arg != 0) return 0; break;
    case FORAY_MOVE:
    case FORAY_ATTACK: if (arg < 1 || arg > 4) return 0; break;
    case FORAY_MINE: if (arg < 0 || arg > 4) return 0; break;
    default: return 0; /* SPAWN belongs to the colony */
    }
    a->used[slot] = 1;
    a->rec[a->n++] = (foray_action_t){u->id, op, arg};
    return 1;
}

FORAY_API inline int32_t foray_move(foray_actions_t *a, const foray_unit_t *u, int32_t dir) {
    return foray_act(a, u, FORAY_MOVE, dir);
}
FORAY_API inline int32_t foray_attack(foray_actions_t *a, const foray_unit_t *u, int32_t dir) {
    return foray_act(a, u, FORAY_ATTACK, dir);
}
FORAY_API inline int32_t foray_mine(foray_actions_t *a, const foray_unit_t *u, int32_t dir) {
    return foray_act(a, u, FORAY_MINE, dir);
}
FORAY_API inline int32_t foray_deposit(foray_actions_t *a, const foray_unit_t *u) {
    return foray_act(a, u, FORAY_DEPOSIT, 0);
}
/* Whether u already has an action this tick. */
FORAY_API inline int32_t foray_acted(const foray_actions_t *a, const foray_unit_t *u) {
    return a->used[1 + (int32_t)(u - a->obs->own)];
}
/* The colony's one spawn of the tick (kind FORAY_WORKER or FORAY_SOLDIER). */
FORAY_API int32_t foray_spawn(foray_actions_t *a, int32_t kind) {
    if (a->used[0] || (kind != FORAY_WORKER && kind != FORAY_SOLDIER)) return 0;
    a->used[0] = 1;
    a->rec[a->n++] = (foray_action_t){FORAY_COLONY_ID, FORAY_SPAWN, kind};
    return 1;
}

/* ------------------------------------------------------------- the exports */

#ifndef FORAY_NO_EXPORTS

static foray_obs_t foray_obs_now;
static foray_actions_t foray_acts_now;

__attribute__((export_name("foray_buffer"))) int32_t foray_buffer(void) {
    return (int32_t)(uintptr_t)foray_io;
}

/* Decode INIT, keep copies of the terrain and the ore, call bot_init. A
 * non-zero return fails the init: only for a message this header cannot read. */
__attribute__((export_name("foray_init"))) int32_t foray_init(int32_t len) {
    const int32_t *w = (const int32_t *)foray_io;
    if (len < FORAY_INIT_TERRAIN_BYTE || w[FORAY_INIT_ABI_VERSION] != FORAY_ABI_VERSION) return 1;
    __builtin_memcpy(&foray_game, foray_io, FORAY_INIT_WORDS * 4);
    int32_t area = foray_game.width * foray_game.height;
    if (foray_game.width < 1 || foray_game.height < 1 || foray_game.width > FORAY_MAX_SIDE ||
        foray_game.height > FORAY_MAX_SIDE)
        return 1;
    int32_t ore_at = FORAY_INIT_TERRAIN_BYTE + ((area + 3) & ~3);
    int32_t n_ore = foray_game.n_ore;
    if (n_ore < 0 || n_ore > area || ore_at + n_ore * FORAY_ORE_WORDS * 4 > len) return 1;
    __builtin_memcpy(foray_terrain_copy, foray_io + FORAY_INIT_TERRAIN_BYTE, (size_t)area);
    __builtin_memcpy(foray_ore_copy, foray_io + ore_at, (size_t)n_ore * sizeof(foray_ore_t));
    foray_game.terrain = foray_terrain_copy;
    foray_game.ore = foray_ore_copy;
    for (int32_t i = 0; i < area; i++) foray_walkable[i] = !foray_terrain_copy[i];
    if (foray_in_bounds(foray_game.colony_x, foray_game.colony_y))
        foray_walkable[foray_cell(foray_game.colony_x, foray_game.colony_y)] = 0;
    if (foray_in_bounds(foray_game.enemy_colony_x, foray_game.enemy_colony_y))
        foray_walkable[foray_cell(foray_game.enemy_colony_x, foray_game.enemy_colony_y)] = 0;
    foray_rng_seed(&foray_rng, foray_game.seed, 0);
    bot_init(&foray_game);
    return 0;
}

#ifdef FORAY_NOTES
/* Debug notes (rules §9.9), compiled in only with -DFORAY_NOTES: call
 * foray_say(text) during bot_tick and the host records the text (at most 256
 * bytes of UTF-8) with the tick in the replay, next to your side. A note costs
 * fuel like anything else and never changes the game. */
#define FORAY_NOTE_BYTES 256
static uint8_t foray_note_text[FORAY_NOTE_BYTES];
static int32_t foray_note_len;

FORAY_API void foray_say(const char *text) {
    int32_t n = 0;
    while (n < FORAY_NOTE_BYTES && text[n]) {
        foray_note_text[n] = (uint8_t)text[n];
        n++;
    }
    foray_note_len = n;
}

__attribute__((export_name("foray_note"))) int32_t foray_note(void) {
    __builtin_memcpy(foray_io, foray_note_text, (size_t)foray_note_len);
    return foray_note_len;
}
#endif

/* Decode OBS, call bot_tick, then (only then: they share the buffer) write the
 * action records at the buffer's start. */
__attribute__((export_name("foray_tick"))) int32_t foray_tick(int32_t len) {
    const int32_t *w = (const int32_t *)foray_io;
    foray_obs_t *o = &foray_obs_now;
    o->tick = w[FORAY_OBS_TICK];
    o->banked = w[FORAY_OBS_BANKED];
    o->energy = w[FORAY_OBS_ENERGY];
    o->colony_hp = w[FORAY_OBS_COLONY_HP];
    o->enemy_banked = w[FORAY_OBS_ENEMY_BANKED];
    o->enemy_colony_hp = w[FORAY_OBS_ENEMY_COLONY_HP];
    /* Clamp the counts to what fits, so a bot never reads past the buffer. */
    int32_t room = (FORAY_BUFFER_BYTES - FORAY_OBS_WORDS * 4) / 4;
    o->n_own = foray_max(0, foray_min(w[FORAY_OBS_N_OWN], FORAY_MAX_UNITS));
    room -= o->n_own * FORAY_UNIT_WORDS;
    o->n_enemy = foray_max(0, foray_min(w[FORAY_OBS_N_ENEMY], FORAY_MAX_UNITS));
    room -= o->n_enemy * FORAY_UNIT_WORDS;
    o->n_ore = foray_max(0, foray_min(w[FORAY_OBS_N_ORE], room / FORAY_ORE_WORDS));
    o->last_fuel = w[FORAY_OBS_LAST_FUEL];
    o->own = (const foray_unit_t *)(w + FORAY_OBS_WORDS);
    o->enemy = o->own + o->n_own;
    o->ore = (const foray_ore_t *)(o->enemy + o->n_enemy);
    (void)len;

    foray_actions_t *a = &foray_acts_now;
    a->n = 0;
    a->obs = o;
    for (int32_t i = 0; i <= o->n_own; i++) a->used[i] = 0;
#ifdef FORAY_NOTES
    foray_note_len = 0;
#endif
    bot_tick(o, a);

    int32_t *out = (int32_t *)foray_io;
    for (int32_t i = 0; i < a->n; i++) {
        out[3 * i] = a->rec[i].unit_id;
        out[3 * i + 1] = a->rec[i].op;
        out[3 * i + 2] = a->rec[i].arg;
    }
    return a->n;
}

#endif /* FORAY_NO_EXPORTS */
#endif /* FORAY_H */
