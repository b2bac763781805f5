/* Tick never returns: fuel (or the wall-clock backstop) must stop it. */
#include "foray.h"

static volatile unsigned int counter;

EXPORT("foray_init") int foray_init(int len) { return len < 0; }

EXPORT("foray_tick") int foray_tick(int len) {
    for (;;) counter += (unsigned int)len;
}
