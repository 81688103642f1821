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
#include "stratus_udp.h"
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define CHECK(call)                                                                     \
  do {                                                                                  \
    if ((call) != napi_ok) return NULL;                                                 \
  } while (0)

/* Frees the socket's memory (once neither JavaScript nor libuv can reach it). */
static void release(udp_t *u) {
  table_free(&u->cache);
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
  u->recv_buf = malloc((size_t)BATCH * RECV_SIZE);
  u->send_buf = malloc((size_t)BATCH * MAX_ANSWER);
  if (!table_init(&u->cache) || !u->recv_buf || !u->send_buf) {
    close(fd);
    release(u);
    napi_throw_error(env, "ENOMEM", "out of memory");
    return NULL;
  }
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
  uint8_t key[MAX_QUERY + 1];
  int end;
  size_t key_len = table_key(q, ql, key, &end);
  int ok = key_len && rcode < u->rcode_count && table_install(&u->cache, key, key_len, end, a, al, slot, expires, (uint8_t)rcode);
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
  table_invalidate(&u->cache, slot);
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
