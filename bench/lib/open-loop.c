/*
 * An open-loop HTTP/1.1 load generator in C, for bench/edge.mjs's `--open-client c` (the same measure as
 * open-loop.mjs, without a JavaScript runtime's garbage collections and timers in the client): OFFERED requests/s
 * of `GET /` with Host HOST to 127.0.0.1:PORT over CONCURRENCY keep-alive connections, for WARM + SECONDS seconds.
 * Each request is due on its schedule (a timerfd, nanosecond deadlines) whether or not earlier ones finished; a due
 * request waits for a free connection. Latency is counted from the schedule (and, as `sent99`, from the write);
 * `late99` is how late requests were written. Requests due in the first WARM seconds are not counted.
 *
 *   cc -O2 -o open-loop open-loop.c && ./open-loop PORT HOST OFFERED SECONDS WARM CONCURRENCY
 *
 * Prints one JSON line: { "p50", "p99", "max", "count", "late99", "sent99", "errors" } (milliseconds).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#define BUF 65536

struct conn {
  int fd;
  int busy;
  double scheduled, sent;
  char buf[BUF];
  size_t len;
};

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double at(double *xs, size_t n, double q) {
  if (n == 0) return 0;
  size_t i = (size_t)(n * q);
  return xs[i < n ? i : n - 1];
}

static int port;
static struct sockaddr_in addr;

static int connect_one(int ep, struct conn *c) {
  c->fd = socket(AF_INET, SOCK_STREAM, 0);
  if (c->fd < 0 || connect(c->fd, (struct sockaddr *)&addr, sizeof addr) != 0) return -1;
  int one = 1;
  setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  struct epoll_event ev = { .events = EPOLLIN, .data.ptr = c };
  epoll_ctl(ep, EPOLL_CTL_ADD, c->fd, &ev);
  c->busy = 0;
  c->len = 0;
  return 0;
}

/* The length of the complete response at the start of buf, or 0 while incomplete (Content-Length or chunked). */
static size_t complete(const char *buf, size_t len) {
  const char *end = memmem(buf, len, "\r\n\r\n", 4);
  if (!end) return 0;
  size_t head = (size_t)(end - buf) + 4;
  const char *cl = NULL;
  int chunked = 0;
  for (const char *line = buf; line < end; ) {
    const char *next = memmem(line, (size_t)(end - line) + 2, "\r\n", 2);
    if (!next) break;
    if ((size_t)(next - line) > 15 && strncasecmp(line, "content-length:", 15) == 0) cl = line + 15;
    if ((size_t)(next - line) > 18 && strncasecmp(line, "transfer-encoding:", 18) == 0 && memmem(line, (size_t)(next - line), "chunked", 7)) chunked = 1;
    line = next + 2;
  }
  if (!chunked) {
    size_t body = cl ? strtoul(cl, NULL, 10) : 0;
    return len >= head + body ? head + body : 0;
  }
  size_t at = head;
  for (;;) {
    const char *eol = memmem(buf + at, len - at, "\r\n", 2);
    if (!eol) return 0;
    size_t size = strtoul(buf + at, NULL, 16);
    at = (size_t)(eol - buf) + 2;
    if (size == 0) return len >= at + 2 ? at + 2 : 0; /* no trailers */
    at += size + 2;
    if (at > len) return 0;
  }
}

int main(int argc, char **argv) {
  if (argc != 7) { fprintf(stderr, "usage: open-loop PORT HOST OFFERED SECONDS WARM CONCURRENCY\n"); return 2; }
  port = atoi(argv[1]);
  const char *host = argv[2];
  double offered = atof(argv[3]), seconds = atof(argv[4]), warm = atof(argv[5]);
  int concurrency = atoi(argv[6]);
  addr.sin_family = AF_INET;
  addr.sin_port = htons((unsigned short)port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  char request[512];
  int reqlen = snprintf(request, sizeof request, "GET / HTTP/1.1\r\nHost: %s\r\n\r\n", host);

  size_t total = (size_t)(offered * (seconds + warm));
  double *latency = calloc(total, sizeof(double)), *late = calloc(total, sizeof(double)), *fromsent = calloc(total, sizeof(double));
  double *queue = calloc(total, sizeof(double));
  struct conn *conns = calloc((size_t)concurrency, sizeof(struct conn));
  size_t counted = 0, nlate = 0, qhead = 0, qtail = 0, issued = 0, done = 0, errors = 0;

  int ep = epoll_create1(0);
  for (int i = 0; i < concurrency; i++) if (connect_one(ep, &conns[i]) != 0) { fprintf(stderr, "open-loop: cannot connect to port %d\n", port); return 1; }
  int timer = timerfd_create(CLOCK_MONOTONIC, 0);
  struct epoll_event tev = { .events = EPOLLIN, .data.ptr = NULL };
  epoll_ctl(ep, EPOLL_CTL_ADD, timer, &tev);

  const double t0 = now_ms() + 20, countFrom = t0 + warm * 1000;
  struct epoll_event events[64];
  while (done < total) {
    double now = now_ms();
    while (issued < total && t0 + issued * 1000.0 / offered <= now) queue[qtail++] = t0 + issued++ * 1000.0 / offered;
    for (int i = 0; i < concurrency && qhead < qtail; i++) {
      struct conn *c = &conns[i];
      if (c->busy) continue;
      c->scheduled = queue[qhead++];
      c->sent = now_ms();
      c->busy = 1;
      if (c->scheduled >= countFrom) late[nlate++] = c->sent - c->scheduled;
      if (write(c->fd, request, (size_t)reqlen) != reqlen) { errors++; c->busy = 0; done++; }
    }
    if (issued < total) {
      double next = t0 + issued * 1000.0 / offered;
      struct itimerspec when = { 0 };
      when.it_value.tv_sec = (time_t)(next / 1e3);
      when.it_value.tv_nsec = (long)((next - when.it_value.tv_sec * 1e3) * 1e6);
      timerfd_settime(timer, TFD_TIMER_ABSTIME, &when, NULL);
    }
    int n = epoll_wait(ep, events, 64, 1000);
    for (int k = 0; k < n; k++) {
      struct conn *c = events[k].data.ptr;
      if (!c) { unsigned long long ticks; if (read(timer, &ticks, sizeof ticks) < 0) { /* not due yet */ } continue; }
      ssize_t got = read(c->fd, c->buf + c->len, BUF - c->len);
      if (got <= 0) {
        if (c->busy) { errors++; done++; }
        epoll_ctl(ep, EPOLL_CTL_DEL, c->fd, NULL);
        close(c->fd);
        if (connect_one(ep, c) != 0) { fprintf(stderr, "open-loop: cannot reconnect\n"); return 1; }
        continue;
      }
      c->len += (size_t)got;
      size_t whole = complete(c->buf, c->len);
      if (whole == 0) { if (c->len == BUF) { fprintf(stderr, "open-loop: an answer over %d bytes\n", BUF); return 1; } continue; }
      double end = now_ms();
      if (c->scheduled >= countFrom) { latency[counted] = end - c->scheduled; fromsent[counted++] = end - c->sent; }
      memmove(c->buf, c->buf + whole, c->len - whole);
      c->len -= whole;
      c->busy = 0;
      done++;
    }
  }
  qsort(latency, counted, sizeof(double), cmp);
  qsort(fromsent, counted, sizeof(double), cmp);
  qsort(late, nlate, sizeof(double), cmp);
  printf("{\"p50\":%.3f,\"p99\":%.3f,\"max\":%.3f,\"count\":%zu,\"late99\":%.3f,\"sent99\":%.3f,\"errors\":%zu}\n",
    at(latency, counted, 0.5), at(latency, counted, 0.99), counted ? latency[counted - 1] : 0, counted, at(late, nlate, 0.99), at(fromsent, counted, 0.99), errors);
  return 0;
}
