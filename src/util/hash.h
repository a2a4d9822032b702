/*
 * hash.h - 64-bit content hashing for genomes, sources and cache keys.
 *
 * FNV-style multiply-xor over 8-byte words, then a splitmix64 finalizer:
 * stable across little-endian platforms and runs (it is written into run directories), not
 * cryptographic. Hex form is always 16 lower-case digits.
 */
#ifndef KEVO_HASH_H
#define KEVO_HASH_H

#include <stddef.h>
#include <stdint.h>

#define HASH_SEED 0xcbf29ce484222325ULL

/* Continues hash h over n bytes of p. Start with HASH_SEED. */
uint64_t hash_bytes(uint64_t h, const void *p, size_t n);
/* Another hash of n bytes of p from h, over four 8-byte lanes at once:
 * about 4x hash_bytes's speed on long inputs, for what nothing written
 * before it depends on (the compile cache's keys, jit.c). */
uint64_t hash_bytes_wide(uint64_t h, const void *p, size_t n);
/* Continues hash h over a NUL-terminated string (without the NUL). */
uint64_t hash_str(uint64_t h, const char *s);
/* Continues hash h over one 64-bit integer (little-endian bytes). */
uint64_t hash_u64(uint64_t h, uint64_t v);
/* Final mixing step; apply once before using or printing a hash. */
uint64_t hash_final(uint64_t h);
/* Writes 16 hex digits and a NUL into out[17]. */
void hash_hex(uint64_t h, char out[17]);
/* Parses 16 hex digits; returns 0 on success, -1 if s is not one. */
int hash_parse(const char *s, uint64_t *out);

#endif
