// SPDX-License-Identifier: MIT
// Redis connection plumbing (see redis_conn.h). Every failure is recorded through
// ne__rconn_set_error, so callers print rc->errstr; an I/O error drops the context so the next
// call reconnects instead of reusing a desynchronized socket.
#include "exec/redis_conn.h"

#include <arpa/inet.h>  // inet_pton
#include <ctype.h>
#include <netdb.h>  // getaddrinfo
#include <poll.h>
#include <sched.h>  // sched_yield
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#include "core/util.h"

// ---- URLs ---------------------------------------------------------------------------------

static int hexval(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  c = (char)tolower((unsigned char)c);
  return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

// Copies text[0..n) percent-decoded into out; -1 if it does not fit or has a bad escape.
static int pct_decode(const char* text, size_t n, char* out, size_t size) {
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    char c = text[i];
    if (c == '%') {
      if (i + 2 >= n) return -1;
      int hi = hexval(text[i + 1]), lo = hexval(text[i + 2]);
      if (hi < 0 || lo < 0) return -1;
      c = (char)(hi * 16 + lo);
      i += 2;
    }
    if (k + 1 >= size) return -1;
    out[k++] = c;
  }
  out[k] = '\0';
  return 0;
}

static int bad_url(const char* url, char* errstr, const char* why) {
  return ne__set_error(errstr, NE_EINVAL, "Redis URL '%s': %s (expected redis://[user:password@]host:port[/db])", url,
                       why);
}

// Splits "user:password" (or ":password" or "user") into out.
static int parse_userinfo(const char* url, const char* s, size_t n, ne__redis_url* out, char* errstr) {
  const char* colon = memchr(s, ':', n);
  size_t ulen = colon ? (size_t)(colon - s) : n;
  if (pct_decode(s, ulen, out->user, sizeof out->user)) return bad_url(url, errstr, "bad user name");
  if (colon) {
    if (pct_decode(colon + 1, n - ulen - 1, out->password, sizeof out->password))
      return bad_url(url, errstr, "bad password");
    out->has_password = out->password[0] != '\0';
  }
  return 0;
}

// Parses "host[:port]" or "[v6]:port" of length n.
static int parse_hostport(const char* url, const char* s, size_t n, ne__redis_url* out, char* errstr) {
  const char* port = NULL;
  if (n && s[0] == '[') {
    const char* close = memchr(s, ']', n);
    if (!close) return bad_url(url, errstr, "unclosed '[' in the host");
    snprintf(out->host, sizeof out->host, "%.*s", (int)(close - s - 1), s + 1);
    if (close + 1 < s + n && close[1] == ':') port = close + 2;
    else if (close + 1 != s + n) return bad_url(url, errstr, "junk after the IPv6 address");
  } else {
    const char* colon = memchr(s, ':', n);
    size_t hlen = colon ? (size_t)(colon - s) : n;
    if (hlen >= sizeof out->host) return bad_url(url, errstr, "host name too long");
    snprintf(out->host, sizeof out->host, "%.*s", (int)hlen, s);
    if (colon) port = colon + 1;
  }
  if (!out->host[0]) return bad_url(url, errstr, "no host");
  if (port) {
    char* end;
    long p = strtol(port, &end, 10);
    if (end != s + n || end == port || p < 1 || p > 65535) return bad_url(url, errstr, "port must be 1..65535");
    out->port = (int)p;
  }
  return 0;
}

static void show_url(ne__redis_url* u) {
  const char* v6 = strchr(u->host, ':') ? "[" : "";
  const char* v6e = *v6 ? "]" : "";
  snprintf(u->shown, sizeof u->shown, "redis://%s%s%s%s%s%s:%d/%d", u->user, u->has_password ? ":***" : "",
           u->user[0] || u->has_password ? "@" : "", v6, u->host, v6e, u->port, u->db);
}

int ne__redis_url_parse(const char* url, ne__redis_url* out, char* errstr) {
  return ne__redis_url_parse_env(url, "NEUROEVO_REDIS_PASSWORD", out, errstr);
}

int ne__redis_url_parse_env(const char* url, const char* password_env, ne__redis_url* out, char* errstr) {
  memset(out, 0, sizeof *out);
  out->port = 6379;
  snprintf(out->password_env, sizeof out->password_env, "%s", password_env);
  if (!url || !*url) return bad_url("", errstr, "empty");
  const char* s = url;
  if (strncmp(s, "redis://", 8) == 0) s += 8;
  else if (strncmp(s, "rediss://", 9) == 0)
    // (the URL is not repeated: it may hold a password)
    return ne__set_error(errstr, NE_EINVAL,
                         "rediss:// (TLS) is not built in: run a TLS tunnel (stunnel) on this machine and give its "
                         "local end, redis://127.0.0.1:PORT (docs/deploy.md, \"Encrypted Redis\")");
  else if (strstr(s, "://")) return bad_url(url, errstr, "only the redis:// scheme is supported");
  // [userinfo@]hostport[/db]
  const char* slash = strchr(s, '/');
  const char* end = slash ? slash : s + strlen(s);
  const char* at = NULL;
  for (const char* p = s; p < end; p++)
    if (*p == '@') at = p;
  int rc = at ? parse_userinfo(url, s, (size_t)(at - s), out, errstr) : 0;
  if (!rc) rc = parse_hostport(url, at ? at + 1 : s, (size_t)(end - (at ? at + 1 : s)), out, errstr);
  if (rc) return rc;
  if (slash && slash[1]) {
    char* dend;
    long db = strtol(slash + 1, &dend, 10);
    if (*dend || db < 0 || db > 1000000) return bad_url(url, errstr, "database must be a number");
    out->db = (int)db;
  }
  const char* env = getenv(password_env);
  if (!out->has_password && env && *env) {
    snprintf(out->password, sizeof out->password, "%s", env);
    out->has_password = 1;
  }
  show_url(out);
  return 0;
}

static int addr_is_loopback(const struct sockaddr* sa) {
  if (sa->sa_family == AF_INET) {
    uint32_t a = ntohl(((const struct sockaddr_in*)sa)->sin_addr.s_addr);
    return (a >> 24) == 127;
  }
  if (sa->sa_family == AF_INET6) {
    static const unsigned char lo[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
    return memcmp(&((const struct sockaddr_in6*)sa)->sin6_addr, lo, 16) == 0;
  }
  return 0;
}

int ne__redis_url_is_loopback(const ne__redis_url* url) {
  struct addrinfo hints, *res = NULL;
  memset(&hints, 0, sizeof hints);
  hints.ai_socktype = SOCK_STREAM;
  if (getaddrinfo(url->host, NULL, &hints, &res) != 0 || !res) return 0;
  int all = 1;
  for (struct addrinfo* a = res; a; a = a->ai_next) all = all && addr_is_loopback(a->ai_addr);
  freeaddrinfo(res);
  return all;
}

int ne__redis_url_check_auth(const ne__redis_url* url, const char* who, char* errstr) {
  if (url->has_password || ne__redis_url_is_loopback(url)) return 0;
  return ne__set_error(errstr, NE_EINVAL,
                       "%s refuses to use the non-loopback Redis at %s without credentials (anyone who can reach it "
                       "could inject tasks and results): give redis://[user]:PASSWORD@%s:%d or set %s",
                       who, url->shown, url->host, url->port, url->password_env);
}

// ---- connections --------------------------------------------------------------------------

int ne__rconn_set_error(ne__rconn* rc, int code, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(rc->errstr, sizeof rc->errstr, fmt, ap);
  va_end(ap);
  rc->err = code;
  return code;
}

void ne__rconn_close(ne__rconn* rc) {
  if (!rc || !rc->c) return;
  redisFree(rc->c);
  rc->c = NULL;
  rc->n_scripts = 0;
}

// Drops the context after an I/O error, keeping hiredis's reason.
static void drop(ne__rconn* rc, const char* doing) {
  const char* why = rc->c && rc->c->errstr[0] ? rc->c->errstr : "connection lost";
  ne__rconn_set_error(rc, NE_ENET, "Redis at %s: %s: %s", rc->url.shown, doing, why);
  ne__rconn_close(rc);
}

// AUTH and SELECT on a fresh connection.
static int login(ne__rconn* rc) {
  redisReply* r = NULL;
  if (rc->url.has_password && rc->url.user[0]) r = redisCommand(rc->c, "AUTH %s %s", rc->url.user, rc->url.password);
  else if (rc->url.has_password) r = redisCommand(rc->c, "AUTH %s", rc->url.password);
  if (rc->url.has_password && !r) return drop(rc, "AUTH"), NE_ENET;
  if (r && r->type == REDIS_REPLY_ERROR) {
    ne__rconn_set_error(rc, NE_EINVAL, "Redis at %s refused the credentials: %s", rc->url.shown, r->str);
    freeReplyObject(r);
    ne__rconn_close(rc);
    return NE_EINVAL;
  }
  if (r) freeReplyObject(r);
  r = redisCommand(rc->c, "SELECT %d", rc->url.db);
  if (!r) return drop(rc, "SELECT"), NE_ENET;
  int bad = r->type == REDIS_REPLY_ERROR;
  if (bad && strncmp(r->str, "NOAUTH", 6) == 0)
    ne__rconn_set_error(rc, NE_EINVAL, "Redis at %s needs a password: give redis://[user]:PASSWORD@host:port or set %s",
                        rc->url.shown, rc->url.password_env[0] ? rc->url.password_env : "NEUROEVO_REDIS_PASSWORD");
  else if (bad) ne__rconn_set_error(rc, NE_EINVAL, "Redis at %s: SELECT %d: %s", rc->url.shown, rc->url.db, r->str);
  freeReplyObject(r);
  if (bad) ne__rconn_close(rc);
  return bad ? rc->err : 0;
}

// Streams with consumer groups and XAUTOCLAIM need Redis 6.2.
static int check_version(ne__rconn* rc) {
  redisReply* r = redisCommand(rc->c, "INFO server");
  if (!r) return drop(rc, "INFO"), NE_ENET;
  int major = 0, minor = 0;
  const char* v = r->type == REDIS_REPLY_STRING ? strstr(r->str, "redis_version:") : NULL;
  if (v) sscanf(v, "redis_version:%d.%d", &major, &minor);
  freeReplyObject(r);
  if (v && (major < 6 || (major == 6 && minor < 2))) {
    ne__rconn_close(rc);
    return ne__rconn_set_error(rc, NE_EUNSUPPORTED,
                               "Redis at %s is version %d.%d; neuroevo needs 6.2 or newer (XAUTOCLAIM)", rc->url.shown,
                               major, minor);
  }
  return 0;
}

int ne__rconn_open(ne__rconn* rc, const ne__redis_url* url, double timeout_s) {
  if (rc->c) ne__rconn_close(rc);
  if (url != &rc->url) rc->url = *url;
  rc->timeout_s = timeout_s > 0 ? timeout_s : 2;
  rc->err = 0;
  rc->errstr[0] = '\0';
  struct timeval tv = {(time_t)rc->timeout_s, (suseconds_t)((rc->timeout_s - (double)(time_t)rc->timeout_s) * 1e6)};
  rc->c = redisConnectWithTimeout(rc->url.host, rc->url.port, tv);
  if (!rc->c) return ne__rconn_set_error(rc, NE_ENOMEM, "out of memory connecting to %s", rc->url.shown);
  if (rc->c->err) {
    drop(rc, "connect");
    return NE_ENET;
  }
  double cmd_s = rc->timeout_s > 5 ? rc->timeout_s : 5;
  struct timeval ctv = {(time_t)cmd_s, 0};
  redisSetTimeout(rc->c, ctv);
  int err = login(rc);
  if (!err) err = check_version(rc);
  if (!err) rc->opens++;
  return err;
}

int ne__rconn_ensure(ne__rconn* rc) { return rc->c ? 0 : ne__rconn_open(rc, &rc->url, rc->timeout_s); }

int ne__rconn_wait(ne__rconn* rc, const volatile int* stop, double max_s) {
  double t0 = ne__now(), backoff = 0.05;
  for (;;) {
    int err = ne__rconn_ensure(rc);
    if (!err || err == NE_EINVAL || err == NE_EUNSUPPORTED) return err;
    if (stop && *stop) return NE_EINTR;
    if (max_s > 0 && ne__now() - t0 > max_s) return err;
    // sleep in slices so a stop request is seen quickly
    for (double slept = 0; slept < backoff && !(stop && *stop); slept += 0.05) ne__sleep_s(0.05);
    backoff = backoff < 1 ? backoff * 2 : 1;
  }
}

redisReply* ne__rconn_command(ne__rconn* rc, const char* fmt, ...) {
  if (!rc->c && ne__rconn_ensure(rc)) return NULL;
  va_list ap;
  va_start(ap, fmt);
  redisReply* r = redisvCommand(rc->c, fmt, ap);
  va_end(ap);
  if (!r) drop(rc, "command");
  return r;
}

redisReply* ne__rconn_argv(ne__rconn* rc, int argc, const char** argv, const size_t* lens) {
  if (!rc->c && ne__rconn_ensure(rc)) return NULL;
  redisReply* r = redisCommandArgv(rc->c, argc, argv, lens);
  if (!r) drop(rc, argv[0]);
  return r;
}

int ne__rconn_append(ne__rconn* rc, int argc, const char** argv, const size_t* lens) {
  // never reconnect inside a pipeline: replies queued on the old socket would be miscounted
  if (!rc->c) return NE_ENET;
  if (redisAppendCommandArgv(rc->c, argc, argv, lens) != REDIS_OK) {
    drop(rc, argv[0]);
    return NE_ENET;
  }
  return 0;
}

redisReply* ne__rconn_get_reply(ne__rconn* rc) {
  if (!rc->c) return NULL;
  void* reply = NULL;
  if (redisGetReply(rc->c, &reply) != REDIS_OK || !reply) {
    drop(rc, "reply");
    return NULL;
  }
  return reply;
}

int ne__rconn_spin(ne__rconn* rc, double spin_s) {
  if (!rc->c) return NE_ENET;
  for (int done = 0; !done;)
    if (redisBufferWrite(rc->c, &done) != REDIS_OK) {
      drop(rc, "write");
      return NE_ENET;
    }
  if (rc->c->reader && rc->c->reader->pos < rc->c->reader->len) return 0;  // a reply is buffered already
  struct pollfd pfd = {rc->c->fd, POLLIN, 0};
  for (double end = ne__now() + spin_s; ne__now() < end;) {
    if (poll(&pfd, 1, 0) != 0) break;  // readable, or an error the read will report
    sched_yield();
  }
  return 0;
}

// ---- scripts ------------------------------------------------------------------------------

static const char* script_sha(const ne__rconn* rc, const char* body) {
  for (int i = 0; i < rc->n_scripts; i++)
    if (rc->scripts[i].body == body) return rc->scripts[i].sha;
  return NULL;
}

void ne__rconn_scripts_lost(ne__rconn* rc) { rc->n_scripts = 0; }

int ne__rconn_script_load(ne__rconn* rc, const char* body) {
  if (script_sha(rc, body)) return 0;
  redisReply* r = ne__rconn_command(rc, "SCRIPT LOAD %s", body);
  if (!r) return NE_ENET;
  int ok = r->type == REDIS_REPLY_STRING && r->len == 40;
  if (ok && rc->n_scripts == NE_RCONN_SCRIPTS) rc->n_scripts = 0;  // more scripts than slots: start over
  if (ok) {
    rc->scripts[rc->n_scripts].body = body;
    memcpy(rc->scripts[rc->n_scripts++].sha, r->str, 41);
  } else {
    ne__rconn_set_error(rc, NE_EIO, "Redis at %s: SCRIPT LOAD: %s", rc->url.shown,
                        r->type == REDIS_REPLY_ERROR ? r->str : "unexpected reply");
  }
  freeReplyObject(r);
  return ok ? 0 : NE_EIO;
}

// Fills argv with EVALSHA sha nkeys args...; returns the word count (at most 3 + n).
static int script_argv(const char* sha, int nkeys, int n, const char** args, const size_t* lens, char nk[16],
                       const char** argv, size_t* alens) {
  snprintf(nk, 16, "%d", nkeys);
  argv[0] = "EVALSHA", alens[0] = 7;
  argv[1] = sha, alens[1] = 40;
  argv[2] = nk, alens[2] = strlen(nk);
  for (int i = 0; i < n; i++) argv[3 + i] = args[i], alens[3 + i] = lens ? lens[i] : strlen(args[i]);
  return 3 + n;
}

#define SCRIPT_MAX_ARGS 64  // arguments of one script call

int ne__rconn_append_script(ne__rconn* rc, const char* body, int nkeys, int n, const char** args, const size_t* lens) {
  const char* sha = script_sha(rc, body);
  if (!sha || n > SCRIPT_MAX_ARGS) return ne__rconn_set_error(rc, NE_EINVAL, "script not loaded or too many arguments");
  const char* argv[3 + SCRIPT_MAX_ARGS];
  size_t alens[3 + SCRIPT_MAX_ARGS];
  char nk[16];
  return ne__rconn_append(rc, script_argv(sha, nkeys, n, args, lens, nk, argv, alens), argv, alens);
}

redisReply* ne__rconn_script(ne__rconn* rc, const char* body, int nkeys, int n, const char** args, const size_t* lens) {
  for (int attempt = 0; attempt < 2; attempt++) {
    if (n > SCRIPT_MAX_ARGS) return ne__rconn_set_error(rc, NE_EINVAL, "too many script arguments"), NULL;
    if (ne__rconn_script_load(rc, body)) return NULL;
    const char* argv[3 + SCRIPT_MAX_ARGS];
    size_t alens[3 + SCRIPT_MAX_ARGS];
    char nk[16];
    int argc = script_argv(script_sha(rc, body), nkeys, n, args, lens, nk, argv, alens);
    redisReply* r = ne__rconn_argv(rc, argc, argv, alens);
    if (!r || !ne__reply_error_is(r, "NOSCRIPT") || attempt == 1) return r;
    freeReplyObject(r);
    ne__rconn_scripts_lost(rc);
  }
  return NULL;
}

int ne__reply_error_is(const redisReply* reply, const char* prefix) {
  return reply && reply->type == REDIS_REPLY_ERROR && reply->str && strncmp(reply->str, prefix, strlen(prefix)) == 0;
}

const redisReply* ne__reply_field(const redisReply* fields, const char* name) {
  for (size_t i = 0; fields && fields->type == REDIS_REPLY_ARRAY && i + 1 < fields->elements; i += 2)
    if (fields->element[i]->type == REDIS_REPLY_STRING && strcmp(fields->element[i]->str, name) == 0)
      return fields->element[i + 1];
  return NULL;
}

const char* ne__reply_str(const redisReply* fields, const char* name, const char* fallback) {
  const redisReply* v = ne__reply_field(fields, name);
  return v && v->type == REDIS_REPLY_STRING ? v->str : fallback;
}

void ne__reply_free(redisReply* reply) {
  if (reply) freeReplyObject(reply);
}

int ne__rconn_server_ms(ne__rconn* rc, long long* now_ms) {
  redisReply* r = ne__rconn_command(rc, "TIME");
  if (!r) return NE_ENET;
  int ok = r->type == REDIS_REPLY_ARRAY && r->elements == 2 && r->element[0]->type == REDIS_REPLY_STRING &&
      r->element[1]->type == REDIS_REPLY_STRING;
  if (ok) *now_ms = strtoll(r->element[0]->str, NULL, 10) * 1000 + strtoll(r->element[1]->str, NULL, 10) / 1000;
  freeReplyObject(r);
  return ok ? 0 : NE_EIO;
}

int ne__stream_id_parse(const char* text, uint64_t* ms, uint64_t* seq) {
  char* end;
  *ms = *seq = 0;
  if (!text) return -1;
  *ms = strtoull(text, &end, 10);
  if (end == text) return -1;
  if (*end == '\0') return 0;
  if (*end != '-') return -1;
  const char* s = end + 1;
  *seq = strtoull(s, &end, 10);
  return end == s || *end ? -1 : 0;
}

int ne__stream_id_cmp(const char* a, const char* b) {
  uint64_t am, as, bm, bs;
  ne__stream_id_parse(a, &am, &as);
  ne__stream_id_parse(b, &bm, &bs);
  if (am != bm) return am < bm ? -1 : 1;
  if (as != bs) return as < bs ? -1 : 1;
  return 0;
}

void ne__key_exp(char key[NE_KEY_LEN], const char* id_hex, const char* suffix) {
  snprintf(key, NE_KEY_LEN, "ne:exp:%s:%s", id_hex, suffix);
}
