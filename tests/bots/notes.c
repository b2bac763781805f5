/* A controller that leaves a debug note every tick (rules §9.9), misbehaving in
 * its note call on purpose, chosen at build time with -DNOTE=n from tick
 * NOTE_TICK on. Written against the raw ABI so each length can be returned. */
#include <stdint.h>

#define NOTE_OK 0        /* "tick T: N units", UTF-8 with a non-ASCII character */
#define NOTE_LONG 1      /* returns 300: dropped */
#define NOTE_NEGATIVE 2  /* returns -5: dropped */
#define NOTE_BAD_UTF8 3  /* bytes that are not UTF-8: kept with replacement characters */
#define NOTE_TRAP 4      /* unreachable in foray_note: the tick's trap */
#define NOTE_SPIN 5      /* spins in foray_note: the tick's fuel */
#ifndef NOTE
#define NOTE NOTE_OK
#endif
#ifndef NOTE_TICK
#define NOTE_TICK 0
#endif

static uint8_t io[65536] __attribute__((aligned(16)));
static int32_t tick_now, n_own_now;

__attribute__((export_name("foray_buffer"))) int32_t foray_buffer(void) {
    return (int32_t)(uintptr_t)io;
}

__attribute__((export_name("foray_init"))) int32_t foray_init(int32_t len) {
    (void)len;
    return 0;
}

__attribute__((export_name("foray_tick"))) int32_t foray_tick(int32_t len) {
    (void)len;
    const int32_t *w = (const int32_t *)io;
    tick_now = w[0];
    n_own_now = w[6];
    return 0; /* no actions */
}

static int32_t put(int32_t at, const char *text) {
    while (*text) io[at++] = (uint8_t)*text++;
    return at;
}

static int32_t put_int(int32_t at, int32_t v) {
    char digits[12];
    int32_t n = 0;
    do digits[n++] = (char)('0' + v % 10); while ((v /= 10) > 0);
    while (n) io[at++] = (uint8_t)digits[--n];
    return at;
}

__attribute__((export_name("foray_note"))) int32_t foray_note(void) {
    if (tick_now >= NOTE_TICK) {
        if (NOTE == NOTE_LONG) return 300;
        if (NOTE == NOTE_NEGATIVE) return -5;
        if (NOTE == NOTE_BAD_UTF8) {
            io[0] = 'a';
            io[1] = 0xff;
            io[2] = 0xfe;
            io[3] = 'b';
            return 4;
        }
        if (NOTE == NOTE_TRAP) __builtin_trap();
        if (NOTE == NOTE_SPIN) {
            volatile int32_t x = 0;
            for (;;) x++;
        }
    }
    int32_t at = put(0, "tick ");
    at = put_int(at, tick_now);
    at = put(at, ": ");
    at = put_int(at, n_own_now);
    at = put(at, " units \xc2\xb7 ok"); /* a middle dot: UTF-8 beyond ASCII */
    return at;
}
