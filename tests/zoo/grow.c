/* Tick grows memory by word 0 pages, reports the old size (or -1) in word 0, returns one record. */
#include "foray.h"

EXPORT("foray_init") int foray_init(int len) { return len < 0; }

EXPORT("foray_tick") int foray_tick(int len) {
    (void)len;
    set_word(0, (int)__builtin_wasm_memory_grow(0, (unsigned long)word(0)));
    set_word(1, 0);
    set_word(2, 0);
    return 1;
}
