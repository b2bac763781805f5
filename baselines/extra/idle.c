/* idle: does nothing, every tick. The floor for host-overhead benchmarks. */
#include "../foray.h"

void bot_init(const foray_init_t *game) { (void)game; }
void bot_tick(const foray_obs_t *obs, foray_actions_t *acts) { (void)obs; (void)acts; }
