/* Minimal contract glue shared by the zoo's C modules. */
#define EXPORT(name) __attribute__((export_name(name)))

static unsigned char buf[65536] __attribute__((aligned(16)));

EXPORT("foray_buffer") int foray_buffer(void) { return (int)(unsigned long)buf; }

static inline int word(int i) { return ((int *)buf)[i]; }
static inline void set_word(int i, int v) { ((int *)buf)[i] = v; }
