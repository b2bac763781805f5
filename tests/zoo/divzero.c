/* Tick divides by zero: an integer-division trap. */
#include "foray.h"

static volatile int zero;

EXPORT("foray_init") int foray_init(int len) { return len < 0; }

EXPORT("foray_tick") int foray_tick(int len) { return len / zero; }
