/* Well behaved. Tick mode (word 0): 0 -> one fixed action (7, 1, 2) after
 * summing the message (fuel grows with its length); 1 -> return word 1 as n. */
#include "foray.h"

static unsigned int checksum;

EXPORT("foray_init") int foray_init(int len) { return word(0) == 1 && len >= 4 ? 0 : 1; }

EXPORT("foray_tick") int foray_tick(int len) {
    if (word(0) == 1) return word(1);
    for (int i = 0; i < len; i++) checksum = checksum * 31u + buf[i];
    set_word(0, 7);
    set_word(1, 1);
    set_word(2, 2);
    return 1;
}

EXPORT("checksum") unsigned int get_checksum(void) { return checksum; }
