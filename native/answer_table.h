/*
 * The native packet cache of the DNS thread's UDP path: encoded answers keyed as the JavaScript packet cache
 * keys queries (src/dns-server/packet-cache.ts), each filed under a zone slot whose generation drops it.
 */
#ifndef STRATUS_ANSWER_TABLE_H
#define STRATUS_ANSWER_TABLE_H
#include <stddef.h>
#include <stdint.h>

/* Longest query that is cached (as packet-cache.ts), and longest answer (a UDP answer is at most 4096 bytes). */
#define MAX_QUERY 600
#define MAX_ANSWER 4096

typedef struct {
  uint64_t hash;
  uint8_t *key; /* key bytes then answer bytes, one allocation; NULL: free slot */
  uint16_t key_len;
  uint16_t answer_len;
  uint32_t zone_slot;
  uint32_t zone_gen;
  uint32_t all_gen;
  double expires_ms;
  uint8_t rcode_index;
  uint8_t truncated;
} entry_t;

typedef struct {
  entry_t *slots;
  uint32_t entries;
  uint32_t all_gen;
  uint32_t *zone_gens;
  uint32_t zone_cap;
} table_t;

/* Allocates an empty table; 0 when out of memory. */
int table_init(table_t *t);
void table_free(table_t *t);

/* The key of an eligible query into key (MAX_QUERY + 1 bytes); its length, or 0 when the query is not cached. */
size_t table_key(const uint8_t *q, size_t len, uint8_t *key, int *name_end);

/* The live answer under this key (same zone and table generations, not expired at wall ms), or NULL. */
const entry_t *table_find(const table_t *t, const uint8_t *key, size_t key_len, double wall);

/* Stores an answer under a key for a zone slot until expires_ms; 0 when the answer cannot be cached. */
int table_install(table_t *t, const uint8_t *key, size_t key_len, int name_end, const uint8_t *answer, size_t answer_len,
                  uint32_t zone_slot, double expires_ms, uint8_t rcode_index);

/* Drops a zone slot's answers, or every answer (slot < 0). */
void table_invalidate(table_t *t, int32_t slot);

#endif
