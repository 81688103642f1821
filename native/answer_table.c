/*
 * The native packet cache (answer_table.h): open addressing over 2^17 slots, FNV-1a, keys verified byte for
 * byte; at most half the slots used, then everything starts over (as packet-cache.ts clears when full).
 * Invalidation is by generation: a zone's answers carry its generation at install, and a bump makes them miss.
 */
#include "answer_table.h"
#include <stdlib.h>
#include <string.h>

#define TABLE_SIZE (1u << 17)
#define MAX_ENTRIES (TABLE_SIZE / 2)

static uint64_t fnv1a(const uint8_t *p, size_t n) {
  uint64_t h = 1469598103934665603ULL;
  for (size_t i = 0; i < n; i++) { h ^= p[i]; h *= 1099511628211ULL; }
  return h;
}

/* Offset after the question name's root label, or -1 (packet-cache.ts questionNameEnd). */
static int question_name_end(const uint8_t *q, size_t len) {
  size_t pos = 12;
  for (int hops = 0; hops < 128; hops++) {
    if (pos >= len) return -1;
    uint8_t l = q[pos];
    if (l == 0) return (int)pos + 1;
    if (l > 63) return -1;
    pos += (size_t)l + 1;
  }
  return -1;
}

int table_init(table_t *t) {
  memset(t, 0, sizeof *t);
  t->slots = calloc(TABLE_SIZE, sizeof(entry_t));
  t->zone_cap = 64;
  t->zone_gens = calloc(t->zone_cap, sizeof(uint32_t));
  return t->slots && t->zone_gens;
}

static void clear(table_t *t) {
  for (uint32_t i = 0; i < TABLE_SIZE; i++) {
    free(t->slots[i].key);
    t->slots[i].key = NULL;
  }
  t->entries = 0;
}

void table_free(table_t *t) {
  if (t->slots) clear(t);
  free(t->slots);
  free(t->zone_gens);
  t->slots = NULL;
  t->zone_gens = NULL;
}

/*
 * As packetKey: 17 to 600 bytes, QR=0 and opcode QUERY, one question, no answer or authority records, at most
 * one additional (the OPT); then the RD and CD bits, the name lowercased (ASCII, RFC 4343), the rest raw.
 */
size_t table_key(const uint8_t *q, size_t len, uint8_t *key, int *name_end) {
  if (len < 17 || len > MAX_QUERY || (q[2] & 0xf8) != 0) return 0;
  if (q[4] != 0 || q[5] != 1 || q[6] != 0 || q[7] != 0 || q[8] != 0 || q[9] != 0 || q[10] != 0 || q[11] > 1) return 0;
  int end = question_name_end(q, len);
  if (end < 0) return 0;
  key[0] = (uint8_t)((q[2] & 0x01) | (q[3] & 0x10));
  for (int i = 12; i < end; i++) {
    uint8_t c = q[i];
    key[i - 11] = (c >= 'A' && c <= 'Z') ? (uint8_t)(c + 32) : c;
  }
  memcpy(key + (end - 11), q + end, len - (size_t)end);
  *name_end = end;
  return 1 + (size_t)(end - 12) + (len - (size_t)end);
}

static entry_t *slot_for(const table_t *t, uint64_t h, const uint8_t *key, size_t key_len, int *found) {
  uint32_t i = (uint32_t)h & (TABLE_SIZE - 1);
  for (;;) {
    entry_t *e = &t->slots[i];
    if (!e->key) { *found = 0; return e; }
    if (e->hash == h && e->key_len == key_len && memcmp(e->key, key, key_len) == 0) { *found = 1; return e; }
    i = (i + 1) & (TABLE_SIZE - 1);
  }
}

const entry_t *table_find(const table_t *t, const uint8_t *key, size_t key_len, double wall) {
  int found;
  const entry_t *e = slot_for(t, fnv1a(key, key_len), key, key_len, &found);
  if (!found || e->all_gen != t->all_gen || e->zone_slot >= t->zone_cap || e->zone_gen != t->zone_gens[e->zone_slot]) return NULL;
  return wall < e->expires_ms ? e : NULL;
}

int table_install(table_t *t, const uint8_t *key, size_t key_len, int name_end, const uint8_t *answer, size_t answer_len,
                  uint32_t zone_slot, double expires_ms, uint8_t rcode_index) {
  /* One question, written first and uncompressed: the query's name bytes patch in at 12..name_end. */
  if (answer_len < 12 || answer_len > MAX_ANSWER || answer[4] != 0 || answer[5] != 1 || answer_len < (size_t)name_end) return 0;
  if (zone_slot >= t->zone_cap) {
    uint32_t cap = t->zone_cap;
    while (cap <= zone_slot) cap *= 2;
    uint32_t *gens = realloc(t->zone_gens, cap * sizeof(uint32_t));
    if (!gens) return 0;
    memset(gens + t->zone_cap, 0, (cap - t->zone_cap) * sizeof(uint32_t));
    t->zone_gens = gens;
    t->zone_cap = cap;
  }
  uint8_t *mem = malloc(key_len + answer_len);
  if (!mem) return 0;
  memcpy(mem, key, key_len);
  memcpy(mem + key_len, answer, answer_len);
  if (t->entries >= MAX_ENTRIES) clear(t);
  uint64_t h = fnv1a(key, key_len);
  int found;
  entry_t *e = slot_for(t, h, key, key_len, &found);
  if (found) free(e->key);
  else t->entries++;
  e->hash = h;
  e->key = mem;
  e->key_len = (uint16_t)key_len;
  e->answer_len = (uint16_t)answer_len;
  e->zone_slot = zone_slot;
  e->zone_gen = t->zone_gens[zone_slot];
  e->all_gen = t->all_gen;
  e->expires_ms = expires_ms;
  e->rcode_index = rcode_index;
  e->truncated = (answer[2] & 0x02) != 0;
  return 1;
}

void table_invalidate(table_t *t, int32_t slot) {
  if (slot < 0) t->all_gen++;
  else if ((uint32_t)slot < t->zone_cap) t->zone_gens[slot]++;
}
