/* A controller that acts and leaves a note every tick, for the note's place in
 * the tick (rules §9.9). Written against the raw ABI.
 *
 * foray_tick returns a MOVE for each of its first 20 units (direction
 * 1 + (tick + i) % 4 for the i-th) and the colony's SPAWN of a worker; then
 * foray_note writes its text over those records: "n=K " and dots, as long as
 * the K records were (12 bytes each), so a host that read the records after
 * the note would read dots (unit ids 0x2e2e2e2e: an invalid action).
 *
 * -DTICK_SPIN=n and -DNOTE_SPIN=n burn fuel in either call, a loop of n steps
 * every tick, to show that the two calls share one tick's budget. */
#include <stdint.h>

#ifndef TICK_SPIN
#define TICK_SPIN 0
#endif
#ifndef NOTE_SPIN
#define NOTE_SPIN 0
#endif
#define MAX_MOVES 20 /* 21 records: 252 bytes, a note of at most 256 covers them */

static uint8_t io[65536] __attribute__((aligned(16)));
static int32_t records_now;

static void spin(int32_t steps) {
    for (volatile int32_t i = 0; i < steps; i++) {
    }
}

__attribute__((export_name("foray_buffer"))) int32_t foray_buffer(void) {
    return (int32_t)(uintptr_t)io;
}

__attribute__((export_name("foray_init"))) int32_t foray_init(int32_t len) {
    (void)len;
    return 0;
}

__attribute__((export_name("foray_tick"))) int32_t foray_tick(int32_t len) {
    (void)len;
    int32_t *w = (int32_t *)io;
    int32_t tick = w[0], n_own = w[6];
    int32_t ids[MAX_MOVES];
    int32_t n = n_own < MAX_MOVES ? n_own : MAX_MOVES;
    for (int32_t i = 0; i < n; i++) ids[i] = w[16 + 6 * i]; /* read before writing records */
    for (int32_t i = 0; i < n; i++) {
        w[3 * i] = ids[i];
        w[3 * i + 1] = 1;                   /* MOVE */
        w[3 * i + 2] = 1 + (tick + i) % 4;  /* NORTH, EAST, SOUTH, WEST in turn */
    }
    w[3 * n] = 0; /* the colony */
    w[3 * n + 1] = 5; /* SPAWN */
    w[3 * n + 2] = 1; /* a worker */
    records_now = n + 1;
    spin(TICK_SPIN);
    return records_now;
}

__attribute__((export_name("foray_note"))) int32_t foray_note(void) {
    spin(NOTE_SPIN);
    int32_t at = 0, k = records_now;
    io[at++] = 'n';
    io[at++] = '=';
    if (k >= 10) io[at++] = (uint8_t)('0' + k / 10);
    io[at++] = (uint8_t)('0' + k % 10);
    io[at++] = ' ';
    while (at < 12 * k) io[at++] = '.';
    return at;
}
