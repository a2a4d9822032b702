/*
 * hash.c - FNV-style multiply-xor over 8-byte words + splitmix64
 * finalizer (see hash.h). Assumes little-endian words (x86-64, arm64).
 */
#include "hash.h"

#include <stdio.h>
#include <string.h>

uint64_t hash_bytes(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    size_t i = 0;
    /* 8 bytes per step (sources are ~10 KB and hashed per candidate) */
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, b + i, 8);
        h = (h ^ w) * 0x100000001b3ULL;
        h ^= h >> 29;
    }
    for (; i < n; i++) {
        h ^= b[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}

uint64_t hash_bytes_wide(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    uint64_t l[4] = {h, h ^ 0x9e3779b97f4a7c15ULL, h ^ 0xbf58476d1ce4e5b9ULL,
                     h ^ 0x94d049bb133111ebULL};
    size_t i = 0;
    for (; i + 32 <= n; i += 32)
        for (int k = 0; k < 4; k++) {
            uint64_t w;
            memcpy(&w, b + i + 8 * k, 8);
            l[k] = (l[k] ^ w) * 0x100000001b3ULL;
            l[k] ^= l[k] >> 29;
        }
    for (int k = 0; k < 4; k++)
        h = hash_u64(h, hash_final(l[k]));
    return hash_bytes(h, b + i, n - i);
}

uint64_t hash_str(uint64_t h, const char *s)
{
    return hash_bytes(h, s, strlen(s));
}

uint64_t hash_u64(uint64_t h, uint64_t v)
{
    unsigned char b[8];
    for (int i = 0; i < 8; i++)
        b[i] = (unsigned char)(v >> (8 * i));
    return hash_bytes(h, b, 8);
}

uint64_t hash_final(uint64_t h)
{
    h ^= h >> 30;
    h *= 0xbf58476d1ce4e5b9ULL;
    h ^= h >> 27;
    h *= 0x94d049bb133111ebULL;
    h ^= h >> 31;
    return h;
}

void hash_hex(uint64_t h, char out[17])
{
    snprintf(out, 17, "%016llx", (unsigned long long)h);
}

int hash_parse(const char *s, uint64_t *out)
{
    uint64_t v = 0;
    for (int i = 0; i < 16; i++) {
        char c = s[i];
        int d;
        if (c >= '0' && c <= '9')
            d = c - '0';
        else if (c >= 'a' && c <= 'f')
            d = c - 'a' + 10;
        else
            return -1;
        v = v << 4 | (uint64_t)d;
    }
    if (s[16] != '\0')
        return -1;
    *out = v;
    return 0;
}
