// SPDX-License-Identifier: MIT
// A TCP proxy that delays every byte by a fixed time in each direction: network latency for
// bench/cluster/bench_scale.sh where the kernel has no netem qdisc (this VM's kernel lacks sch_netem, and
// the fq/etf qdiscs that honour a BPF-set departure time, so `tc` cannot delay packets). It runs
// inside a node's network namespace, listens on the node's side and connects to the master's Redis
// across the namespace's veth; what it reads at time t is written at t + delay (one timerfd, one
// queue: the delay is the same for every chunk, so chunks fall due in the order they were read).
// Not a general proxy: connections are not half-closed (either side closing closes both), and
// its own wake-ups add to the delay on a loaded machine (bench_scale.sh reports its CPU).
// usage: delay_proxy LISTEN_ADDR:PORT TARGET_ADDR:PORT DELAY_US
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#define READ_MAX 65536

typedef struct side side;
typedef struct chunk {
  struct chunk* next;      // the global queue (due order)
  struct chunk* out_next;  // the destination's backlog (write order)
  side* to;                // destination
  uint64_t due_ns;
  size_t len, off;
  unsigned gen;  // the destination's generation when queued (a reused slot drops stale chunks)
  char data[];
} chunk;

struct side {
  int fd;  // -1: closed
  side* peer;
  unsigned gen;        // bumped when the slot is reused
  chunk *head, *tail;  // backlog: due chunks not yet written (EAGAIN)
};

static chunk *q_head, *q_tail;
static int ep, tfd;
static uint64_t delay_ns;
static struct sockaddr_in target;

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int parse_addr(const char* s, struct sockaddr_in* a) {
  char host[64];
  const char* colon = strrchr(s, ':');
  if (!colon || colon - s >= (int)sizeof host) return -1;
  memcpy(host, s, (size_t)(colon - s));
  host[colon - s] = '\0';
  memset(a, 0, sizeof *a);
  a->sin_family = AF_INET;
  a->sin_port = htons((uint16_t)atoi(colon + 1));
  return inet_pton(AF_INET, host, &a->sin_addr) == 1 ? 0 : -1;
}

static void arm_timer(void) {
  struct itimerspec its;
  memset(&its, 0, sizeof its);
  if (q_head) {
    uint64_t t = q_head->due_ns;
    its.it_value.tv_sec = (time_t)(t / 1000000000ull);
    its.it_value.tv_nsec = (long)(t % 1000000000ull);
    if (its.it_value.tv_sec == 0 && its.it_value.tv_nsec == 0) its.it_value.tv_nsec = 1;
  }
  timerfd_settime(tfd, TFD_TIMER_ABSTIME, &its, NULL);
}

static void close_side(side* s) {
  if (s->fd < 0) return;
  epoll_ctl(ep, EPOLL_CTL_DEL, s->fd, NULL);
  close(s->fd);
  s->fd = -1;
  s->gen++;
  for (chunk* c = s->head; c;) {
    chunk* n = c->out_next;
    free(c);
    c = n;
  }
  s->head = s->tail = NULL;
}

static void close_pair(side* s) {
  side* p = s->peer;
  close_side(s);
  if (p) close_side(p);
  // the pair's memory is freed when both are closed and no queued chunk points at it: kept (a few
  // bytes per connection; the benchmark's connections live as long as the proxy)
}

// Writes s's backlog; EPOLLOUT is wanted while something is left.
static void flush_side(side* s) {
  while (s->head && s->fd >= 0) {
    chunk* c = s->head;
    ssize_t n = write(s->fd, c->data + c->off, c->len - c->off);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
    if (n <= 0) return close_pair(s);
    c->off += (size_t)n;
    if (c->off < c->len) break;
    s->head = c->out_next;
    if (!s->head) s->tail = NULL;
    free(c);
  }
  if (s->fd < 0) return;
  struct epoll_event ev = {EPOLLIN | (s->head ? EPOLLOUT : 0), {.ptr = s}};
  epoll_ctl(ep, EPOLL_CTL_MOD, s->fd, &ev);
}

// Chunks that fell due go to their destination's backlog, which is then written.
static void release_due(void) {
  uint64_t now = now_ns();
  while (q_head && q_head->due_ns <= now) {
    chunk* c = q_head;
    q_head = c->next;
    if (!q_head) q_tail = NULL;
    side* to = c->to;
    if (to->fd < 0 || to->gen != c->gen) {
      free(c);
      continue;
    }
    c->out_next = NULL;
    if (to->tail) to->tail->out_next = c;
    else to->head = c;
    to->tail = c;
    flush_side(to);
  }
  arm_timer();
}

static void on_readable(side* s) {
  char buf[READ_MAX];
  for (;;) {
    ssize_t n = read(s->fd, buf, sizeof buf);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    if (n <= 0) return close_pair(s);
    chunk* c = malloc(sizeof *c + (size_t)n);
    if (!c) return close_pair(s);
    memcpy(c->data, buf, (size_t)n);
    c->len = (size_t)n, c->off = 0, c->to = s->peer, c->gen = s->peer->gen, c->next = NULL;
    c->due_ns = now_ns() + delay_ns;
    int was_empty = !q_head;
    if (q_tail) q_tail->next = c;
    else q_head = c;
    q_tail = c;
    if (was_empty) arm_timer();
  }
}

static int nonblocking(int fd) { return fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK); }

static void on_accept(int lfd) {
  for (;;) {
    int a = accept4(lfd, NULL, NULL, SOCK_NONBLOCK);
    if (a < 0) return;
    int b = socket(AF_INET, SOCK_STREAM, 0);
    if (b < 0 || connect(b, (struct sockaddr*)&target, sizeof target) != 0) {  // blocking connect: simple
      close(a);
      if (b >= 0) close(b);
      continue;
    }
    nonblocking(b);
    int one = 1;
    setsockopt(a, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    setsockopt(b, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    side* sa = calloc(1, sizeof *sa);
    side* sb = calloc(1, sizeof *sb);
    if (!sa || !sb) {
      close(a), close(b), free(sa), free(sb);
      continue;
    }
    *sa = (side){a, sb, 0, NULL, NULL};
    *sb = (side){b, sa, 0, NULL, NULL};
    struct epoll_event ea = {EPOLLIN, {.ptr = sa}}, eb = {EPOLLIN, {.ptr = sb}};
    epoll_ctl(ep, EPOLL_CTL_ADD, a, &ea);
    epoll_ctl(ep, EPOLL_CTL_ADD, b, &eb);
  }
}

int main(int argc, char** argv) {
  struct sockaddr_in listen_at;
  if (argc != 4 || parse_addr(argv[1], &listen_at) || parse_addr(argv[2], &target)) {
    fprintf(stderr, "usage: delay_proxy LISTEN_ADDR:PORT TARGET_ADDR:PORT DELAY_US (IPv4 addresses)\n");
    return 2;
  }
  delay_ns = (uint64_t)(atof(argv[3]) * 1000);
  signal(SIGPIPE, SIG_IGN);
  int lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0), one = 1;
  setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (lfd < 0 || bind(lfd, (struct sockaddr*)&listen_at, sizeof listen_at) || listen(lfd, 4096)) {
    fprintf(stderr, "delay_proxy: cannot listen on %s: %s\n", argv[1], strerror(errno));
    return 1;
  }
  ep = epoll_create1(0);
  tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK);
  static int lmark, tmark;
  struct epoll_event el = {EPOLLIN, {.ptr = &lmark}}, et = {EPOLLIN, {.ptr = &tmark}};
  epoll_ctl(ep, EPOLL_CTL_ADD, lfd, &el);
  epoll_ctl(ep, EPOLL_CTL_ADD, tfd, &et);
  struct epoll_event evs[256];
  for (;;) {
    int n = epoll_wait(ep, evs, 256, -1);
    for (int i = 0; i < n; i++) {
      void* p = evs[i].data.ptr;
      if (p == &lmark) on_accept(lfd);
      else if (p == &tmark) {
        uint64_t x;
        if (read(tfd, &x, sizeof x) < 0 && errno != EAGAIN) return 1;
      } else {
        side* s = p;
        if (s->fd < 0) continue;
        if (evs[i].events & EPOLLOUT) flush_side(s);
        if (s->fd >= 0 && (evs[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR))) on_readable(s);
      }
    }
    release_due();
  }
}
