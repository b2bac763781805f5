/* echo: replies with one record per own unit plus one, doing no other work.
 * The records are whatever the buffer holds (the OBS message): the benchmark
 * of host overhead reads them back but never plays them. Raw ABI, no foray.h. */
#include <stdint.h>

static int32_t io[65536 / 4];

__attribute__((export_name("foray_buffer"))) int32_t foray_buffer(void) {
    return (int32_t)(uintptr_t)io;
}
__attribute__((export_name("foray_init"))) int32_t foray_init(int32_t len) {
    (void)len;
    return 0;
}
__attribute__((export_name("foray_tick"))) int32_t foray_tick(int32_t len) {
    (void)len;
    return io[6] + 1; /* n_own + 1 */
}
