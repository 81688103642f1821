/*
 * stratus_udp: the DNS thread's native UDP path (docs/dns-server.md, "Native UDP path").
 *
 * One UDP socket, polled on the calling thread's libuv loop (uv_poll). Each time it is readable: recvmmsg a
 * batch, answer packet-cache hits from pre-encoded answers (the query's id and question-name bytes patched in,
 * RFC 4343 case echo), sendmmsg them, then call into JavaScript once for the rest (misses, and hits the query
 * log may want a line for). JavaScript answers misses (send()) and installs what its own packet cache keeps
 * (install()); it invalidates per zone (invalidate()) when the thread applies a changeset.
 *
 * Freshness (read-your-writes): before answering any hit of a batch, the main thread's shared counters
 * (the SharedArrayBuffer state of udp-worker.ts: [0] last batch posted, [1] updates waiting to be posted) are
 * compared with what the thread applied (control[0]) and whether zones have work queued (control[1]); when
 * anything is pending the whole batch goes to JavaScript, which catches up first.
 *
 * The key is the JS packet cache's (packet-cache.ts): RD and CD bits, the question name lowercased (ASCII),
 * everything after it raw (type, class, the OPT record with payload size, DO and options such as cookies).
 * Eligibility is the same: 17..600 bytes, QR=0, opcode QUERY, QDCOUNT=1, AN/NS=0, AR<=1, plain name.
 *
 * Context-aware (NAPI_MODULE_INIT): every worker thread loading it gets its own state.
 */
#ifndef NAPI_VERSION
#define NAPI_VERSION 8
#endif
#define _GNU_SOURCE
#include <node_api.h>
#include <uv.h>
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define BATCH 64
#define RECV_SIZE 65536
#define MAX_ANSWER 4096
#define ROUNDS_PER_POLL 8
#define TABLE_BITS 17
#define TABLE_SIZE (1u << TABLE_BITS)
#define MAX_ENTRIES (TABLE_SIZE / 2)
#define MAX_KEY 600

#define CHECK(call)                                                                     \
  do {                                                                                  \
    if ((call) != napi_ok) return NULL;                                                 \
  } while (0)

typedef struct {
  uint64_t hash;
  uint8_t *key; /* key bytes then answer bytes, one allocation */
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
  napi_env env;
  int fd;
  int closed;
  int finalized;
  uv_poll_t *poll;
  napi_async_cleanup_hook_handle cleanup;
  napi_ref on_batch;
  napi_ref keep; /* the options object: keeps the typed arrays below alive */
  napi_async_context async_ctx;
  /* shared with JavaScript */
  volatile int32_t *state;   /* SharedArrayBuffer: [0] batch posted, [1] posting pending */
  volatile int32_t *control; /* [0] batch applied, [1] zones blocked, [2] query log on, [3] lines per second */
  double *queries, *truncated, *latency, *latency_sum, *bounds, *log_state;
  size_t bound_count;
  int8_t *type_index;
  uint32_t rcode_count, qtype_count;
  /* cache */
  entry_t *table;
  uint32_t entries;
  uint32_t all_gen;
  uint32_t *zone_gens;
  uint32_t zone_cap;
  /* batch buffers */
  struct mmsghdr in[BATCH], out[BATCH];
  struct iovec in_iov[BATCH], out_iov[BATCH];
  struct sockaddr_storage from[BATCH];
  uint8_t *recv_buf;
  uint8_t *send_buf;
} udp_t;

static double now_ms(clockid_t clock) {
  struct timespec ts;
  clock_gettime(clock, &ts);
  return (double)ts.tv_sec * 1000.0 + (double)ts.tv_nsec / 1e6;
}

static uint64_t fnv1a(const uint8_t *p, size_t n) {
  uint64_t h = 1469598103934665603ULL;
  for (size_t i = 0; i < n; i++) { h ^= p[i]; h *= 1099511628211ULL; }
  return h ? h : 1;
}

/* Offset after the question name's root label, or -1 (packet-cache.ts questionNameEnd). */
static int name_end(const uint8_t *q, size_t len) {
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

/* Builds the cache key of an eligible query into key; returns its length, or 0 when not eligible. */
static size_t make_key(const uint8_t *q, size_t len, uint8_t *key, int *end_out) {
  if (len < 17 || len > MAX_KEY || (q[2] & 0xf8) != 0) return 0;
  if (q[4] != 0 || q[5] != 1 || q[6] != 0 || q[7] != 0 || q[8] != 0 || q[9] != 0 || q[10] != 0 || q[11] > 1) return 0;
  int end = name_end(q, len);
  if (end < 0) return 0;
  key[0] = (uint8_t)((q[2] & 0x01) | (q[3] & 0x10));
  for (int i = 12; i < end; i++) {
    uint8_t c = q[i];
    key[i - 11] = (c >= 'A' && c <= 'Z') ? (uint8_t)(c + 32) : c;
  }
  memcpy(key + (end - 11), q + end, len - (size_t)end);
  *end_out = end;
  return 1 + (size_t)(end - 12) + (len - (size_t)end);
}

static int entry_live(const udp_t *u, const entry_t *e, double wall) {
  return e->key && e->all_gen == u->all_gen && e->zone_slot < u->zone_cap && e->zone_gen == u->zone_gens[e->zone_slot] &&
         wall < e->expires_ms;
}

static entry_t *find_slot(udp_t *u, uint64_t h, const uint8_t *key, size_t key_len, int *found) {
  uint32_t i = (uint32_t)h & (TABLE_SIZE - 1);
  for (;;) {
    entry_t *e = &u->table[i];
    if (!e->key) { *found = 0; return e; }
    if (e->hash == h && e->key_len == key_len && memcmp(e->key, key, key_len) == 0) { *found = 1; return e; }
    i = (i + 1) & (TABLE_SIZE - 1);
  }
}

static void clear_table(udp_t *u) {
  for (uint32_t i = 0; i < TABLE_SIZE; i++) {
    free(u->table[i].key);
    u->table[i].key = NULL;
  }
  u->entries = 0;
}

static void count_hit(udp_t *u, const uint8_t *q, int end, const entry_t *e, double seconds) {
  uint16_t type = (uint16_t)((q[end] << 8) | q[end + 1]);
  uint32_t qt = (uint32_t)u->type_index[type];
  u->queries[qt * u->rcode_count + e->rcode_index] += 1; /* transport udp = 0 */
  if (e->truncated) u->truncated[0] += 1;
  size_t b = 0;
  while (b < u->bound_count && seconds > u->bounds[b]) b++;
  u->latency[b] += 1;
  u->latency_sum[0] += seconds;
}

/* Whether the query log may write a line for this hit (query-log.ts decides; this only skips surely skipped ones). */
static int log_wanted(udp_t *u, double wall) {
  if (!u->control[2]) return 0;
  double *s = u->log_state; /* [0] window start, [1] lines in window, [2] skipped */
  if (wall - s[0] >= 1000 || s[1] < (double)u->control[3]) return 1;
  s[2] += 1;
  return 0;
}

static int fresh(udp_t *u) {
  int32_t pending = __atomic_load_n(&u->state[1], __ATOMIC_SEQ_CST);
  int32_t posted = __atomic_load_n(&u->state[0], __ATOMIC_SEQ_CST);
  return pending == 0 && posted == u->control[0] && u->control[1] == 0;
}

static void send_all(udp_t *u, struct mmsghdr *msgs, unsigned n) {
  unsigned done = 0;
  int retried = 0;
  while (done < n) {
    int r = sendmmsg(u->fd, msgs + done, n - done, MSG_DONTWAIT);
    if (r > 0) { done += (unsigned)r; continue; }
    if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) && !retried) {
      struct pollfd p = { u->fd, POLLOUT, 0 };
      poll(&p, 1, 5);
      retried = 1;
      continue;
    }
    if (r < 0 && errno == EINTR) continue;
    done++; /* an unsendable answer (address gone, buffer full): UDP, the client asks again */
  }
}

static napi_value address_string(napi_env env, const struct sockaddr_storage *sa) {
  char text[INET6_ADDRSTRLEN] = "";
  if (sa->ss_family == AF_INET) inet_ntop(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr, text, sizeof text);
  else if (sa->ss_family == AF_INET6) inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)sa)->sin6_addr, text, sizeof text);
  napi_value s;
  napi_create_string_latin1(env, text, NAPI_AUTO_LENGTH, &s);
  return s;
}

static napi_value copy_buffer(napi_env env, const void *p, size_t n) {
  napi_value b;
  void *unused;
  napi_create_buffer_copy(env, n, p, &unused, &b);
  return b;
}

/* One recvmmsg batch: hits answered here, the rest handed to JavaScript. Returns how many packets came. */
static int serve_batch(udp_t *u) {
  for (int i = 0; i < BATCH; i++) {
    u->in[i].msg_hdr.msg_namelen = sizeof(struct sockaddr_storage);
    u->in[i].msg_hdr.msg_flags = 0;
  }
  int n = recvmmsg(u->fd, u->in, BATCH, MSG_DONTWAIT, NULL);
  if (n <= 0) return 0;
  double started = now_ms(CLOCK_MONOTONIC);
  double wall = now_ms(CLOCK_REALTIME);
  int use_cache = fresh(u);
  uint8_t key[MAX_KEY + 1];
  int hit_of[BATCH]; /* index into the send batch, or -1 */
  entry_t *hit_entry[BATCH];
  int hit_end[BATCH];
  unsigned hits = 0;
  for (int i = 0; i < n; i++) {
    hit_of[i] = -1;
    if (!use_cache) continue;
    uint8_t *q = u->in_iov[i].iov_base;
    size_t len = u->in[i].msg_len;
    if (u->in[i].msg_hdr.msg_flags & MSG_TRUNC) continue;
    int end;
    size_t key_len = make_key(q, len, key, &end);
    if (!key_len) continue;
    int found;
    entry_t *e = find_slot(u, fnv1a(key, key_len), key, key_len, &found);
    if (!found || !entry_live(u, e, wall)) continue;
    uint8_t *out = u->send_buf + (size_t)hits * MAX_ANSWER;
    memcpy(out, e->key + e->key_len, e->answer_len);
    out[0] = q[0];
    out[1] = q[1];
    memcpy(out + 12, q + 12, (size_t)end - 12);
    u->out_iov[hits].iov_base = out;
    u->out_iov[hits].iov_len = e->answer_len;
    u->out[hits].msg_hdr.msg_name = &u->from[i];
    u->out[hits].msg_hdr.msg_namelen = u->in[i].msg_hdr.msg_namelen;
    hit_of[i] = (int)hits;
    hit_entry[i] = e;
    hit_end[i] = end;
    hits++;
  }
  if (hits) send_all(u, u->out, hits);
  double seconds = (now_ms(CLOCK_MONOTONIC) - started) / 1000.0;
  int to_js = 0;
  for (int i = 0; i < n; i++) {
    if (hit_of[i] < 0) { to_js = 1; continue; }
    count_hit(u, u->in_iov[i].iov_base, hit_end[i], hit_entry[i], seconds);
    if (log_wanted(u, wall)) to_js = 1;
    else hit_of[i] = -2; /* served, no line */
  }
  if (!to_js) return n;

  napi_env env = u->env;
  napi_handle_scope scope;
  if (napi_open_handle_scope(env, &scope) != napi_ok) return n;
  napi_value misses, logged, fn, recv, result, argv[3];
  napi_create_array(env, &misses);
  napi_create_array(env, &logged);
  uint32_t mi = 0, li = 0;
  for (int i = 0; i < n; i++) {
    if (hit_of[i] == -2) continue;
    const uint8_t *q = u->in_iov[i].iov_base;
    size_t len = u->in[i].msg_len;
    if (hit_of[i] == -1) {
      napi_set_element(env, misses, mi++, copy_buffer(env, q, len));
      napi_set_element(env, misses, mi++, address_string(env, &u->from[i]));
      napi_set_element(env, misses, mi++, copy_buffer(env, &u->from[i], u->in[i].msg_hdr.msg_namelen));
    } else {
      struct iovec *o = &u->out_iov[hit_of[i]];
      napi_set_element(env, logged, li++, copy_buffer(env, q, len));
      napi_set_element(env, logged, li++, address_string(env, &u->from[i]));
      napi_set_element(env, logged, li++, copy_buffer(env, o->iov_base, o->iov_len));
    }
  }
  argv[0] = misses;
  argv[1] = logged;
  napi_create_double(env, seconds, &argv[2]);
  napi_get_reference_value(env, u->on_batch, &fn);
  napi_get_global(env, &recv);
  napi_status st = napi_make_callback(env, u->async_ctx, recv, fn, 3, argv, &result);
  if (st == napi_pending_exception) {
    napi_value err;
    napi_get_and_clear_last_exception(env, &err);
    napi_fatal_exception(env, err);
  }
  napi_close_handle_scope(env, scope);
  return n;
}

static void on_readable(uv_poll_t *poll, int status, int events) {
  udp_t *u = poll->data;
  (void)events;
  if (status < 0 || u->closed) return;
  for (int round = 0; round < ROUNDS_PER_POLL && !u->closed; round++) {
    if (serve_batch(u) < BATCH) break;
  }
}

/* Frees the socket's memory (once neither JavaScript nor libuv can reach it). */
static void release(udp_t *u) {
  if (u->table) { clear_table(u); free(u->table); }
  free(u->zone_gens);
  free(u->recv_buf);
  free(u->send_buf);
  free(u);
}

static void drop_cleanup_hook(udp_t *u) {
  if (u->cleanup) { napi_remove_async_cleanup_hook(u->cleanup); u->cleanup = NULL; }
}

static void on_poll_closed(uv_handle_t *h) {
  udp_t *u = h->data;
  free(h);
  u->poll = NULL;
  drop_cleanup_hook(u);
  if (u->finalized) release(u);
}

static void stop(udp_t *u) {
  if (u->closed) return;
  u->closed = 1;
  if (u->poll) {
    uv_poll_stop(u->poll);
    uv_close((uv_handle_t *)u->poll, on_poll_closed);
  }
  if (u->fd >= 0) { close(u->fd); u->fd = -1; }
}

/*
 * The thread is ending (worker terminated): the poll handle must be closed before its loop is, so this async
 * hook keeps the loop turning until the close callback has run (it removes the hook).
 */
static void on_env_cleanup(napi_async_cleanup_hook_handle handle, void *arg) {
  udp_t *u = arg;
  (void)handle;
  stop(u);
  if (!u->poll) {
    drop_cleanup_hook(u);
    if (u->finalized) release(u);
  }
}

static void finalize_udp(napi_env env, void *data, void *hint) {
  udp_t *u = data;
  (void)hint;
  if (u->on_batch) napi_delete_reference(env, u->on_batch);
  if (u->keep) napi_delete_reference(env, u->keep);
  if (u->async_ctx) napi_async_destroy(env, u->async_ctx);
  u->on_batch = NULL;
  u->keep = NULL;
  u->async_ctx = NULL;
  stop(u);
  u->finalized = 1;
  if (!u->poll) {
    drop_cleanup_hook(u);
    release(u);
  }
}

static napi_value throw_errno(napi_env env, const char *syscall, int err, const char *host, int port) {
  char msg[256];
  snprintf(msg, sizeof msg, "%s %s %s:%d (%s)", syscall, err == EADDRINUSE ? "EADDRINUSE" : err == EACCES ? "EACCES" : err == EADDRNOTAVAIL ? "EADDRNOTAVAIL" : "E", host, port, strerror(err));
  const char *code = err == EADDRINUSE ? "EADDRINUSE" : err == EACCES ? "EACCES" : err == EADDRNOTAVAIL ? "EADDRNOTAVAIL" : err == EAFNOSUPPORT ? "EAFNOSUPPORT" : "EIO";
  napi_throw_error(env, code, msg);
  return NULL;
}

static void *typed_data(napi_env env, napi_value obj, const char *name, size_t *length) {
  napi_value v;
  napi_typedarray_type type;
  void *data = NULL;
  size_t len = 0;
  if (napi_get_named_property(env, obj, name, &v) != napi_ok) return NULL;
  if (napi_get_typedarray_info(env, v, &type, &len, &data, NULL, NULL) != napi_ok) return NULL;
  if (length) *length = len;
  return data;
}

static uint32_t uint_prop(napi_env env, napi_value obj, const char *name) {
  napi_value v;
  uint32_t n = 0;
  if (napi_get_named_property(env, obj, name, &v) == napi_ok) napi_get_value_uint32(env, v, &n);
  return n;
}

/*
 * open(host, port, options) -> handle. host: an IPv4 or IPv6 literal; options: { state, control, queries,
 * truncated, latency, latencySum, bounds, typeIndex, logState, qtypeCount, rcodeCount, onBatch }.
 * Throws an Error whose code is the errno name (EADDRINUSE, ...) when the socket cannot be bound.
 */
static napi_value js_open(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3], self;
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  char host[INET6_ADDRSTRLEN + 1];
  size_t hl;
  int32_t port;
  CHECK(napi_get_value_string_latin1(env, argv[0], host, sizeof host, &hl));
  CHECK(napi_get_value_int32(env, argv[1], &port));
  struct sockaddr_storage ss;
  memset(&ss, 0, sizeof ss);
  socklen_t sl;
  int family;
  if (inet_pton(AF_INET, host, &((struct sockaddr_in *)&ss)->sin_addr) == 1) {
    family = AF_INET;
    ((struct sockaddr_in *)&ss)->sin_family = AF_INET;
    ((struct sockaddr_in *)&ss)->sin_port = htons((uint16_t)port);
    sl = sizeof(struct sockaddr_in);
  } else if (inet_pton(AF_INET6, host, &((struct sockaddr_in6 *)&ss)->sin6_addr) == 1) {
    family = AF_INET6;
    ((struct sockaddr_in6 *)&ss)->sin6_family = AF_INET6;
    ((struct sockaddr_in6 *)&ss)->sin6_port = htons((uint16_t)port);
    sl = sizeof(struct sockaddr_in6);
  } else {
    napi_throw_type_error(env, "EINVAL", "not an IP address literal");
    return NULL;
  }
  int fd = socket(family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return throw_errno(env, "socket", errno, host, port);
  if (bind(fd, (struct sockaddr *)&ss, sl) != 0) {
    int err = errno;
    close(fd);
    return throw_errno(env, "bind", err, host, port);
  }
  udp_t *u = calloc(1, sizeof *u);
  u->env = env;
  u->fd = fd;
  u->table = calloc(TABLE_SIZE, sizeof(entry_t));
  u->zone_cap = 64;
  u->zone_gens = calloc(u->zone_cap, sizeof(uint32_t));
  u->recv_buf = malloc((size_t)BATCH * RECV_SIZE);
  u->send_buf = malloc((size_t)BATCH * MAX_ANSWER);
  for (int i = 0; i < BATCH; i++) {
    u->in_iov[i].iov_base = u->recv_buf + (size_t)i * RECV_SIZE;
    u->in_iov[i].iov_len = RECV_SIZE;
    u->in[i].msg_hdr.msg_iov = &u->in_iov[i];
    u->in[i].msg_hdr.msg_iovlen = 1;
    u->in[i].msg_hdr.msg_name = &u->from[i];
    u->out[i].msg_hdr.msg_iov = &u->out_iov[i];
    u->out[i].msg_hdr.msg_iovlen = 1;
  }
  napi_value opts = argv[2];
  size_t n;
  u->state = typed_data(env, opts, "state", NULL);
  u->control = typed_data(env, opts, "control", NULL);
  u->queries = typed_data(env, opts, "queries", NULL);
  u->truncated = typed_data(env, opts, "truncated", NULL);
  u->latency = typed_data(env, opts, "latency", NULL);
  u->latency_sum = typed_data(env, opts, "latencySum", NULL);
  u->bounds = typed_data(env, opts, "bounds", &n);
  u->bound_count = n;
  u->type_index = typed_data(env, opts, "typeIndex", &n);
  u->log_state = typed_data(env, opts, "logState", NULL);
  u->qtype_count = uint_prop(env, opts, "qtypeCount");
  u->rcode_count = uint_prop(env, opts, "rcodeCount");
  napi_value on_batch, resource_name;
  CHECK(napi_get_named_property(env, opts, "onBatch", &on_batch));
  if (!u->state || !u->control || !u->queries || !u->truncated || !u->latency || !u->latency_sum || !u->bounds || !u->type_index ||
      n != 65536 || !u->log_state || !u->rcode_count) {
    close(fd);
    release(u);
    napi_throw_type_error(env, "EINVAL", "bad options");
    return NULL;
  }
  CHECK(napi_create_reference(env, on_batch, 1, &u->on_batch));
  CHECK(napi_create_reference(env, opts, 1, &u->keep));
  CHECK(napi_create_string_utf8(env, "stratus:udp", NAPI_AUTO_LENGTH, &resource_name));
  CHECK(napi_async_init(env, NULL, resource_name, &u->async_ctx));
  uv_loop_t *loop;
  CHECK(napi_get_uv_event_loop(env, &loop));
  u->poll = malloc(sizeof(uv_poll_t));
  uv_poll_init(loop, u->poll, fd);
  u->poll->data = u;
  uv_poll_start(u->poll, UV_READABLE, on_readable);
  napi_add_async_cleanup_hook(env, on_env_cleanup, u, &u->cleanup);
  CHECK(napi_create_object(env, &self));
  CHECK(napi_wrap(env, self, u, finalize_udp, NULL, NULL));
  return self;
}

static udp_t *unwrap(napi_env env, napi_callback_info info, size_t *argc, napi_value *argv) {
  napi_value self;
  void *u = NULL;
  if (napi_get_cb_info(env, info, argc, argv, &self, NULL) != napi_ok) return NULL;
  if (*argc < 1 || napi_unwrap(env, argv[0], &u) != napi_ok) { napi_throw_type_error(env, NULL, "not a socket"); return NULL; }
  return u;
}

/* address(handle) -> [address, port] of the bound socket. */
static napi_value js_address(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1], out, port;
  udp_t *u = unwrap(env, info, &argc, argv);
  if (!u) return NULL;
  struct sockaddr_storage ss;
  socklen_t sl = sizeof ss;
  if (u->fd < 0 || getsockname(u->fd, (struct sockaddr *)&ss, &sl) != 0) { napi_throw_error(env, NULL, "socket closed"); return NULL; }
  uint16_t p = ss.ss_family == AF_INET ? ((struct sockaddr_in *)&ss)->sin_port : ((struct sockaddr_in6 *)&ss)->sin6_port;
  CHECK(napi_create_array_with_length(env, 2, &out));
  napi_set_element(env, out, 0, address_string(env, &ss));
  napi_create_uint32(env, ntohs(p), &port);
  napi_set_element(env, out, 1, port);
  return out;
}

/* send(handle, sockaddr, message): one answer to a client (its sockaddr as handed to onBatch). */
static napi_value js_send(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3];
  udp_t *u = unwrap(env, info, &argc, argv);
  if (!u || u->fd < 0) return NULL;
  void *sa, *msg;
  size_t sa_len, msg_len;
  CHECK(napi_get_buffer_info(env, argv[1], &sa, &sa_len));
  CHECK(napi_get_typedarray_info(env, argv[2], NULL, &msg_len, &msg, NULL, NULL));
  struct mmsghdr m;
  struct iovec iov = { msg, msg_len };
  memset(&m, 0, sizeof m);
  m.msg_hdr.msg_name = sa;
  m.msg_hdr.msg_namelen = (socklen_t)sa_len;
  m.msg_hdr.msg_iov = &iov;
  m.msg_hdr.msg_iovlen = 1;
  send_all(u, &m, 1);
  return NULL;
}

/*
 * install(handle, query, answer, zoneSlot, expiresAtMs, rcodeIndex): caches an answer JavaScript computed for
 * this query (only answers its own packet cache keeps). Returns whether it was taken.
 */
static napi_value js_install(napi_env env, napi_callback_info info) {
  size_t argc = 6;
  napi_value argv[6], ret;
  udp_t *u = unwrap(env, info, &argc, argv);
  if (!u) return NULL;
  void *q, *a;
  size_t ql, al;
  uint32_t slot, rcode;
  double expires;
  CHECK(napi_get_typedarray_info(env, argv[1], NULL, &ql, &q, NULL, NULL));
  CHECK(napi_get_typedarray_info(env, argv[2], NULL, &al, &a, NULL, NULL));
  CHECK(napi_get_value_uint32(env, argv[3], &slot));
  CHECK(napi_get_value_double(env, argv[4], &expires));
  CHECK(napi_get_value_uint32(env, argv[5], &rcode));
  uint8_t key[MAX_KEY + 1];
  int end;
  size_t key_len = make_key(q, ql, key, &end);
  const uint8_t *ans = a;
  int ok = key_len && al >= 12 && al <= MAX_ANSWER && ans[4] == 0 && ans[5] == 1 && al >= (size_t)end && rcode < u->rcode_count;
  if (ok) {
    if (slot >= u->zone_cap) {
      uint32_t cap = u->zone_cap;
      while (cap <= slot) cap *= 2;
      u->zone_gens = realloc(u->zone_gens, cap * sizeof(uint32_t));
      memset(u->zone_gens + u->zone_cap, 0, (cap - u->zone_cap) * sizeof(uint32_t));
      u->zone_cap = cap;
    }
    if (u->entries >= MAX_ENTRIES) clear_table(u);
    uint64_t h = fnv1a(key, key_len);
    int found;
    entry_t *e = find_slot(u, h, key, key_len, &found);
    uint8_t *mem = malloc(key_len + al);
    memcpy(mem, key, key_len);
    memcpy(mem + key_len, a, al);
    if (found) free(e->key);
    else u->entries++;
    e->hash = h;
    e->key = mem;
    e->key_len = (uint16_t)key_len;
    e->answer_len = (uint16_t)al;
    e->zone_slot = slot;
    e->zone_gen = u->zone_gens[slot];
    e->all_gen = u->all_gen;
    e->expires_ms = expires;
    e->rcode_index = (uint8_t)rcode;
    e->truncated = (ans[2] & 0x02) != 0;
  }
  napi_get_boolean(env, ok, &ret);
  return ret;
}

/* invalidate(handle, zoneSlot | -1): drops a zone's answers, or every answer. */
static napi_value js_invalidate(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  udp_t *u = unwrap(env, info, &argc, argv);
  if (!u) return NULL;
  int32_t slot;
  CHECK(napi_get_value_int32(env, argv[1], &slot));
  if (slot < 0) u->all_gen++;
  else if ((uint32_t)slot < u->zone_cap) u->zone_gens[slot]++;
  return NULL;
}

/* close(handle): stops polling and closes the socket (synchronously: the port is free on return). */
static napi_value js_close(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  udp_t *u = unwrap(env, info, &argc, argv);
  if (u) stop(u);
  return NULL;
}

NAPI_MODULE_INIT(/* napi_env env, napi_value exports */) {
  napi_property_descriptor props[] = {
    { "open", NULL, js_open, NULL, NULL, NULL, napi_enumerable, NULL },
    { "address", NULL, js_address, NULL, NULL, NULL, napi_enumerable, NULL },
    { "send", NULL, js_send, NULL, NULL, NULL, napi_enumerable, NULL },
    { "install", NULL, js_install, NULL, NULL, NULL, napi_enumerable, NULL },
    { "invalidate", NULL, js_invalidate, NULL, NULL, NULL, napi_enumerable, NULL },
    { "close", NULL, js_close, NULL, NULL, NULL, napi_enumerable, NULL },
  };
  if (napi_define_properties(env, exports, sizeof props / sizeof props[0], props) != napi_ok) return NULL;
  return exports;
}
