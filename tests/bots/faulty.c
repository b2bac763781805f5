/* A controller that misbehaves on purpose, chosen at build time with -DFAULT=n,
 * from tick FAULT_TICK on. Written against the raw ABI (no foray.h) so it can
 * break the contract in ways the SDK's emitters refuse to. */
#include <stdint.h>

#define FAULT_NONE 0
#define FAULT_TRAP 1         /* unreachable */
#define FAULT_BAD_ID 2       /* an action for a unit it does not have */
#define FAULT_BAD_COUNT 3    /* n = -1 */
#define FAULT_INIT_NONZERO 4 /* foray_init returns 1 */
#define FAULT_SPIN 5         /* burns all its fuel */
#define FAULT_REPEAT 6       /* two actions for one unit */
#define FAULT_SHOW_FUEL 7    /* an unknown id that carries OBS word 9 (last tick's fuel) */
#define FAULT_REPLY 8        /* reply REPLY_N and the words REPLY_WORDS, as given at build time */
#define FAULT_GROW 9         /* grows memory by GROW_PAGES pages every GROW_EVERY ticks, no actions */

#ifndef REPLY_N
#define REPLY_N 0
#endif
#ifndef REPLY_WORDS
#define REPLY_WORDS 0
#endif
static const int32_t reply_words[] = {REPLY_WORDS};

#ifndef GROW_PAGES
#define GROW_PAGES 1
#endif
#ifndef GROW_EVERY
#define GROW_EVERY 1
#endif

#ifndef FAULT
#define FAULT FAULT_NONE
#endif
#ifndef FAULT_TICK
#define FAULT_TICK 3
#endif

static int32_t io[65536 / 4];

__attribute__((export_name("foray_buffer"))) int32_t foray_buffer(void) {
    return (int32_t)(uintptr_t)io;
}

__attribute__((export_name("foray_init"))) int32_t foray_init(int32_t len) {
    (void)len;
    return FAULT == FAULT_INIT_NONZERO ? 1 : 0;
}

__attribute__((export_name("foray_tick"))) int32_t foray_tick(int32_t len) {
    (void)len;
    int32_t tick = io[0], n_own = io[6], last_fuel = io[9];
    int32_t first_id = n_own > 0 ? io[16] : 0;
    if (tick < FAULT_TICK) return 0;
    switch (FAULT) {
    case FAULT_TRAP: __builtin_trap();
    case FAULT_BAD_ID: io[0] = 999; io[1] = 0; io[2] = 0; return 1;
    case FAULT_BAD_COUNT: return -1;
    case FAULT_SPIN: { volatile uint32_t x = 1; for (;;) x = x * 3 + 1; }
    case FAULT_REPEAT:
        io[0] = first_id; io[1] = 0; io[2] = 0;
        io[3] = first_id; io[4] = 0; io[5] = 0;
        return 2;
    case FAULT_REPLY:
        for (uint32_t i = 0; i < sizeof reply_words / sizeof reply_words[0]; i++)
            io[i] = reply_words[i];
        return REPLY_N;
    case FAULT_SHOW_FUEL: io[0] = 1000000 + last_fuel; io[1] = 0; io[2] = 0; return 1;
    case FAULT_GROW:
        if ((tick - FAULT_TICK) % GROW_EVERY == 0) (void)__builtin_wasm_memory_grow(0, GROW_PAGES);
        return 0;
    default: return 0;
    }
}
