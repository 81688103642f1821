/* The DNS thread's native UDP socket (stratus_udp.c: N-API module and lifecycle; udp_batch.c: one batch). */
#ifndef STRATUS_UDP_H
#define STRATUS_UDP_H
#ifndef NAPI_VERSION
#define NAPI_VERSION 8
#endif
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <node_api.h>
#include <uv.h>
#include <sys/socket.h>
#include "answer_table.h"

/* Datagrams per recvmmsg/sendmmsg, the receive buffer of each (any UDP payload), batches per wakeup. */
#define BATCH 64
#define RECV_SIZE 65536
#define ROUNDS_PER_POLL 8

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
  table_t cache;
  /* batch buffers */
  struct mmsghdr in[BATCH], out[BATCH];
  struct iovec in_iov[BATCH], out_iov[BATCH];
  struct sockaddr_storage from[BATCH];
  uint8_t *recv_buf;
  uint8_t *send_buf;
} udp_t;

/* Called by libuv when the socket is readable: serves up to ROUNDS_PER_POLL batches. */
void on_readable(uv_poll_t *poll, int status, int events);
/* Sends a batch of datagrams (a full socket buffer is waited on once, briefly; then answers are dropped: UDP). */
void send_all(udp_t *u, struct mmsghdr *msgs, unsigned n);
/* The client's address as Node's dgram writes it (IPv4, IPv6 including v4-mapped). */
napi_value address_string(napi_env env, const struct sockaddr_storage *sa);

#endif
