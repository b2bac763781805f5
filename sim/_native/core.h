/* The native core's state, shared by the core's C files in sim/_native (which own it) and
 * replays/_native/_frames.c (which reads it to build a tick's replay frame).
 *
 * The layout mirrors the pure Python state (sim/_state.py, sim/_units.py): the
 * same cells, the same units in the same id order, the same ore digest. The
 * pure code is the reference; this is a second implementation of it, checked
 * against it tick by tick (tests/test_native.py).
 */
#ifndef FORAY_CORE_H
#define FORAY_CORE_H

#include <Python.h>
#include <stdint.h>

#define FC_MAX_SIDE 64 /* a row of the map fits one uint64_t */
#define FC_CAPSULE "sim._native._core._C_API"

enum { FC_NOOP, FC_MOVE, FC_ATTACK, FC_MINE, FC_DEPOSIT, FC_SPAWN };
enum { FC_WORKER = 1, FC_SOLDIER = 2 };

/* The constants of rules §4, in sim.Config's field order. */
enum {
    FC_WIDTH,
    FC_HEIGHT,
    FC_MAX_TICKS,
    FC_START_ENERGY,
    FC_START_WORKERS,
    FC_WORKER_COST,
    FC_SOLDIER_COST,
    FC_WORKER_HP,
    FC_SOLDIER_HP,
    FC_SOLDIER_ATTACK,
    FC_CARRY_CAP,
    FC_COLONY_HP,
    FC_UNIT_VISION,
    FC_COLONY_VISION,
    FC_MAX_UNITS,
    FC_CONFIG_FIELDS
};

typedef struct {
    int64_t id, kind, cell, hp, carry;
    int side;
} fc_unit;

typedef struct {
    int64_t colony, colony_hp, banked, energy, next_id;
    int32_t count;  /* living units */
    int32_t *order; /* their slots in the unit pool, by id */
    int32_t spawn[4];
    int32_t nspawn; /* the colony's neighbours on the map, in the owner's N, E, S, W order */
} fc_side;

/* One record as submitted: (unit id, op, arg); slot is the unit's pool slot (-1: the colony). */
typedef struct {
    int64_t id, op, arg;
    int32_t slot;
} fc_record;

typedef struct {
    PyObject_HEAD
    int32_t w, h, n;
    int64_t tick;
    int64_t cfg[FC_CONFIG_FIELDS];
    int64_t *ore;
    uint64_t *ore_key;  /* each cell's key in the ore digest */
    uint64_t *ore_term; /* each cell's share of it */
    uint64_t ore_digest;
    uint64_t ore_rows[FC_MAX_SIDE]; /* bit x of row y: cell (x, y) holds ore (> 0) */
    uint8_t *blocked;
    int32_t *step[5]; /* the neighbour of each cell in absolute direction d, or -1 */
    fc_side sides[2];
    fc_unit *pool;   /* n slots: a cell holds at most one unit */
    int32_t *occ;    /* the slot of the unit on each cell, or -1 */
    int32_t *free;   /* the free slots, a stack */
    int32_t nfree;
    /* The records taken for the tick under way, per side (valid ones only are stepped). */
    fc_record *taken[2];
    int32_t ntaken[2];
    int fresh[2]; /* taken since the last step */
    /* What the last step did, for the replay frame (absolute cells). */
    int64_t *ev_attacks; /* side, id, cell */
    int32_t n_attacks;
    int64_t *ev_deaths; /* side, id */
    int32_t n_deaths;
    int64_t ev_spawns[8]; /* side, id, kind, cell */
    int32_t n_spawns;
    int64_t *ev_deposits; /* side, id, amount */
    int32_t n_deposits;
    int32_t *ev_ore; /* cells whose ore changed, ascending */
    int32_t n_ore;
    /* Scratch of a step, sized by the cells. */
    uint8_t *ore_mark;
    int32_t *scratch_a, *scratch_b, *scratch_c, *scratch_d;
    int64_t *damage;
} fc_core;

/* What the core lends its readers (the capsule FC_CAPSULE). */
typedef struct {
    const char *layout; /* the hash of this header the core was built with */
    PyTypeObject *core_type;
    uint64_t (*checksum)(fc_core *core, int version);
} fc_api;

/* The build (scripts/build_native.py) defines both; a build by hand says so. */
#ifndef FC_SOURCE_HASH
#define FC_SOURCE_HASH "unknown"
#endif
#ifndef FC_LAYOUT
#define FC_LAYOUT "unknown"
#endif

/* What the build is from, findable in the built file's bytes (scripts/build_native.py). */
#define FC_BUILD_MARK                                                                    \
    __attribute__((used)) static const char fc_build_mark[] = "FORAY_BUILD=" FC_SOURCE_HASH \
                                                              ":" FC_LAYOUT;

#endif
