/*
 * One batch of the native UDP path (stratus_udp.h): recvmmsg, hits answered from the answer table when the
 * thread is current (the main thread's shared counters against what it applied), sendmmsg, hits counted as
 * query-stats.ts counts, then one call into JavaScript with the misses and the hits the query log may log.
 */
#include "stratus_udp.h"
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <string.h>
#include <time.h>

static double now_ms(clockid_t clock) {
  struct timespec ts;
  clock_gettime(clock, &ts);
  return (double)ts.tv_sec * 1000.0 + (double)ts.tv_nsec / 1e6;
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

void send_all(udp_t *u, struct mmsghdr *msgs, unsigned n) {
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

napi_value address_string(napi_env env, const struct sockaddr_storage *sa) {
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
  uint8_t key[MAX_QUERY + 1];
  int hit_of[BATCH]; /* index into the send batch, or -1 */
  const entry_t *hit_entry[BATCH];
  int hit_end[BATCH];
  unsigned hits = 0;
  for (int i = 0; i < n; i++) {
    hit_of[i] = -1;
    if (!use_cache) continue;
    uint8_t *q = u->in_iov[i].iov_base;
    size_t len = u->in[i].msg_len;
    if (u->in[i].msg_hdr.msg_flags & MSG_TRUNC) continue;
    int end;
    size_t key_len = table_key(q, len, key, &end);
    if (!key_len) continue;
    const entry_t *e = table_find(&u->cache, key, key_len, wall);
    if (!e) continue;
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

void on_readable(uv_poll_t *poll, int status, int events) {
  udp_t *u = poll->data;
  (void)events;
  if (status < 0 || u->closed) return;
  for (int round = 0; round < ROUNDS_PER_POLL && !u->closed; round++) {
    if (serve_batch(u) < BATCH) break;
  }
}

