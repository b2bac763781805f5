/* chaos: replies with seeded random words, mostly near the contract's edges,
 * so a property test can throw many hostile replies at the host by varying
 * only the match seed. Raw ABI (no foray.h). */
#include <stdint.h>

static int32_t io[65536 / 4];
static uint32_t state;

static uint32_t next(void) {
    state ^= state << 13;
    state ^= state >> 17;
    state ^= state << 5;
    return state;
}

/* A value in lo..hi, inclusive. */
static int32_t pick(int32_t lo, int32_t hi) { return lo + (int32_t)(next() % (uint32_t)(hi - lo + 1)); }

__attribute__((export_name("foray_buffer"))) int32_t foray_buffer(void) {
    return (int32_t)(uintptr_t)io;
}

__attribute__((export_name("foray_init"))) int32_t foray_init(int32_t len) {
    (void)len;
    state = (uint32_t)io[4] * 2654435761u + 0x9E3779B9u; /* the match seed */
    if (!state) state = 1;
    return 0;
}

__attribute__((export_name("foray_tick"))) int32_t foray_tick(int32_t len) {
    (void)len;
    int32_t n_own = io[6];
    int32_t ids[65];
    for (int32_t i = 0; i < n_own && i < 64; i++) ids[i] = io[16 + 6 * i];
    /* Mostly well-formed replies, now and then one that breaks a rule. */
    int32_t wild = pick(0, 15) == 0;
    int32_t n = wild ? pick(-2, 52) : pick(0, n_own + 1);
    if (n > 5000) n = 5000;
    for (int32_t i = 0; i < n && i < 5000; i++) {
        int32_t *r = &io[3 * i];
        if (wild) {
            r[0] = pick(-1, 6);
            r[1] = pick(-1, 6);
            r[2] = pick(-1, 5);
        } else if (i == 0) {
            r[0] = 0; r[1] = 5; r[2] = pick(1, 2); /* the colony spawns */
        } else {
            r[0] = ids[i - 1 < n_own ? i - 1 : 0];
            r[1] = pick(0, 4);
            r[2] = r[1] == 1 || r[1] == 2 ? pick(1, 4) : r[1] == 3 ? pick(0, 4) : 0;
        }
    }
    return n;
}
