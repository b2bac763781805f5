/* BLAKE2b (RFC 7693) of one buffer, unkeyed, with an 8-byte digest: the checksum's hash.
 *
 * hashlib.blake2b(data, digest_size=8) as a little-endian integer is this
 * function's result; tests/test_native.py compares the two.
 */
#ifndef FORAY_BLAKE2B_H
#define FORAY_BLAKE2B_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static const uint64_t fc_blake2b_iv[8] = {
    0x6A09E667F3BCC908ULL, 0xBB67AE8584CAA73BULL, 0x3C6EF372FE94F82BULL, 0xA54FF53A5F1D36F1ULL,
    0x510E527FADE682D1ULL, 0x9B05688C2B3E6C1FULL, 0x1F83D9ABFB41BD6BULL, 0x5BE0CD19137E2179ULL,
};

static const uint8_t fc_blake2b_sigma[12][16] = {
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
    {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
    {11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4},
    {7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8},
    {9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13},
    {2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9},
    {12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11},
    {13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10},
    {6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5},
    {10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0},
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
    {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
};

static inline uint64_t fc_rotr64(uint64_t x, int n) { return (x >> n) | (x << (64 - n)); }

static inline uint64_t fc_load64(const uint8_t *p) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t v;
    memcpy(&v, p, sizeof v); /* one load where the machine's order is the hash's */
    return v;
#else
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = (v << 8) | p[i];
    return v;
#endif
}

#define FC_G(a, b, c, d, x, y)               \
    do {                                     \
        v[a] = v[a] + v[b] + (x);            \
        v[d] = fc_rotr64(v[d] ^ v[a], 32);   \
        v[c] = v[c] + v[d];                  \
        v[b] = fc_rotr64(v[b] ^ v[c], 24);   \
        v[a] = v[a] + v[b] + (y);            \
        v[d] = fc_rotr64(v[d] ^ v[a], 16);   \
        v[c] = v[c] + v[d];                  \
        v[b] = fc_rotr64(v[b] ^ v[c], 63);   \
    } while (0)

static void fc_blake2b_compress(uint64_t h[8], const uint8_t block[128], uint64_t t, int last) {
    uint64_t v[16], m[16];
    for (int i = 0; i < 16; i++) m[i] = fc_load64(block + 8 * i);
    for (int i = 0; i < 8; i++) {
        v[i] = h[i];
        v[i + 8] = fc_blake2b_iv[i];
    }
    v[12] ^= t; /* the high word of the 128-bit counter stays 0: inputs are small */
    if (last) v[14] = ~v[14];
    for (int r = 0; r < 12; r++) {
        const uint8_t *s = fc_blake2b_sigma[r];
        FC_G(0, 4, 8, 12, m[s[0]], m[s[1]]);
        FC_G(1, 5, 9, 13, m[s[2]], m[s[3]]);
        FC_G(2, 6, 10, 14, m[s[4]], m[s[5]]);
        FC_G(3, 7, 11, 15, m[s[6]], m[s[7]]);
        FC_G(0, 5, 10, 15, m[s[8]], m[s[9]]);
        FC_G(1, 6, 11, 12, m[s[10]], m[s[11]]);
        FC_G(2, 7, 8, 13, m[s[12]], m[s[13]]);
        FC_G(3, 4, 9, 14, m[s[14]], m[s[15]]);
    }
    for (int i = 0; i < 8; i++) h[i] ^= v[i] ^ v[i + 8];
}

#undef FC_G

/* The 8-byte digest of data[0:len], as a little-endian integer. */
static uint64_t fc_blake2b_64(const uint8_t *data, size_t len) {
    uint64_t h[8];
    memcpy(h, fc_blake2b_iv, sizeof h);
    h[0] ^= 0x01010000ULL ^ 8; /* no key, an 8-byte digest */
    size_t offset = 0;
    while (len - offset > 128) {
        fc_blake2b_compress(h, data + offset, offset + 128, 0);
        offset += 128;
    }
    uint8_t last[128] = {0};
    memcpy(last, data + offset, len - offset);
    fc_blake2b_compress(h, last, len, 1);
    return h[0];
}

#endif
