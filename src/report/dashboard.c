// SPDX-License-Identifier: MIT
// The dashboard's HTTP server (see dashboard.h): libmicrohttpd with one internal polling thread, so
// requests are handled one at a time and the content code (dashboard_page.c) needs no locks. Three
// GET routes, no file serving (nothing outside the fixed resources can be reached), loopback by
// default. libmicrohttpd is dlopened at the first start (mhd_api.h); built as a stub returning
// NE_EUNSUPPORTED when its header is missing.
#include "neuroevo/dashboard.h"

#include <stdio.h>
#include <string.h>

#include "core/util.h"
#include "neuroevo/alloc.h"
#include "neuroevo/error.h"
#include "report/dashboard_page.h"

#ifdef NE_HAVE_MICROHTTPD
#include <arpa/inet.h>  // inet_pton: the --bind address
#include <netinet/in.h>

#include "report/mhd_api.h"

struct ne_dashboard {
  const ne_mhd_api* mhd;      // libmicrohttpd, loaded at the first start
  struct MHD_Daemon* daemon;  // the server and its thread
  ne__dash content;           // settings and the Redis cache
  int port;                   // the port listened on
};

// ---- requests ------------------------------------------------------------------------------

// Queues buf as the response (copied) with content type and status; frees nothing.
static enum MHD_Result respond(const ne_dashboard* d, struct MHD_Connection* c, unsigned status, const char* type,
                               const ne_buf* buf) {
  const ne_mhd_api* mhd = d->mhd;
  struct MHD_Response* r = mhd->MHD_create_response_from_buffer(buf->len, buf->data, MHD_RESPMEM_MUST_COPY);
  if (!r) return MHD_NO;
  mhd->MHD_add_response_header(r, "Content-Type", type);
  mhd->MHD_add_response_header(r, "Cache-Control", "no-store");
  // the page runs only its own inline script and talks only to this server
  mhd->MHD_add_response_header(r, "Content-Security-Policy",
                               "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
                               "img-src data:; connect-src 'self'");
  enum MHD_Result ok = mhd->MHD_queue_response(c, status, r);
  mhd->MHD_destroy_response(r);
  return ok;
}

static enum MHD_Result respond_text(const ne_dashboard* d, struct MHD_Connection* c, unsigned status,
                                    const char* text) {
  ne_buf b = {(uint8_t*)text, strlen(text), strlen(text), 0};
  return respond(d, c, status, "text/plain; charset=utf-8", &b);
}

static enum MHD_Result handle(void* cls, struct MHD_Connection* c, const char* url, const char* method,
                              const char* version, const char* upload, size_t* upload_size, void** state) {
  (void)version, (void)upload, (void)upload_size, (void)state;
  ne_dashboard* d = cls;
  if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
    return respond_text(d, c, MHD_HTTP_METHOD_NOT_ALLOWED, "read-only: GET only\n");
  const char* x = d->mhd->MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "x");
  ne_buf b;
  ne__buf_init(&b);
  const char* type = NULL;
  if (strcmp(url, "/") == 0) {
    ne__dash_page(&b, &d->content, x);
    type = "text/html; charset=utf-8";
  } else if (strcmp(url, "/api/state.json") == 0) {
    ne__dash_state_json(&b, &d->content, x);
    type = "application/json";
  } else if (strcmp(url, "/chart.svg") == 0) {
    ne__dash_chart(&b, &d->content, x);
    type = "image/svg+xml";
  }
  enum MHD_Result ok;
  if (!type) ok = respond_text(d, c, MHD_HTTP_NOT_FOUND, "not found: try / or /api/state.json\n");
  else if (b.oom) ok = respond_text(d, c, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory\n");
  else ok = respond(d, c, MHD_HTTP_OK, type, &b);
  ne__buf_free(&b);
  return ok;
}

// ---- start and stop ------------------------------------------------------------------------

// Copies the options into d->content (paths default to "runs").
static int copy_options(ne_dashboard* d, const ne_dashboard_options* opt) {
  static const char* const DEFAULT_PATHS[] = {"runs"};
  int n = opt->n_paths > 0 ? opt->n_paths : 1;
  const char* const* paths = opt->n_paths > 0 ? opt->paths : DEFAULT_PATHS;
  ne__dash* c = &d->content;
  c->refresh_s = opt->refresh_s > 0 ? opt->refresh_s : 2;
  c->max_runs = opt->max_runs > 0 ? opt->max_runs : 10;
  c->paths = ne_calloc((size_t)n, sizeof *c->paths);
  if (!c->paths) return NE_ENOMEM;
  for (c->n_paths = 0; c->n_paths < n; c->n_paths++)
    if (!(c->paths[c->n_paths] = ne_strdup(paths[c->n_paths]))) return NE_ENOMEM;
  if (opt->redis_url && !(c->redis_url = ne_strdup(opt->redis_url))) return NE_ENOMEM;
  return 0;
}

// The socket address for bind:port (IPv4 or IPv6); *v6 tells which.
static int make_address(const char* bind, int port, struct sockaddr_storage* sa, int* v6, char* errstr) {
  memset(sa, 0, sizeof *sa);
  struct sockaddr_in* a4 = (struct sockaddr_in*)sa;
  struct sockaddr_in6* a6 = (struct sockaddr_in6*)sa;
  *v6 = 0;
  if (inet_pton(AF_INET, bind, &a4->sin_addr) == 1) {
    a4->sin_family = AF_INET;
    a4->sin_port = htons((uint16_t)port);
    return 0;
  }
  if (inet_pton(AF_INET6, bind, &a6->sin6_addr) == 1) {
    a6->sin6_family = AF_INET6;
    a6->sin6_port = htons((uint16_t)port);
    *v6 = 1;
    return 0;
  }
  return ne__set_error(errstr, NE_EINVAL, "--bind %s: not an IPv4 or IPv6 address", bind);
}

int ne_dashboard_start(const ne_dashboard_options* opt, ne_dashboard** out, char* errstr) {
  *out = NULL;
  const char* bind = opt->bind ? opt->bind : "127.0.0.1";
  if (opt->port < 0 || opt->port > 65535)
    return ne__set_error(errstr, NE_EINVAL, "port %d: expected 0..65535", opt->port);
  struct sockaddr_storage sa;
  int v6, rc = make_address(bind, opt->port, &sa, &v6, errstr);
  if (rc) return rc;
  const ne_mhd_api* mhd = ne__mhd(errstr);
  if (!mhd) return NE_EUNSUPPORTED;
  ne_dashboard* d = ne_calloc(1, sizeof *d);
  if (!d || copy_options(d, opt)) {
    ne_dashboard_stop(d);
    return ne__set_error(errstr, NE_ENOMEM, "out of memory");
  }
  d->mhd = mhd;
  // one internal thread: requests never run concurrently (dashboard_page.h relies on it)
  unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG | (v6 ? MHD_USE_IPv6 : 0);
  d->daemon = d->mhd->MHD_start_daemon(flags, (uint16_t)opt->port, NULL, NULL, handle, d, MHD_OPTION_SOCK_ADDR,
                                       (struct sockaddr*)&sa, MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)30,
                                       MHD_OPTION_CONNECTION_LIMIT, (unsigned)64, MHD_OPTION_END);
  if (!d->daemon) {
    ne_dashboard_stop(d);
    return ne__set_error(errstr, NE_EIO, "cannot listen on %s port %d (in use, or not an address of this machine?)",
                         bind, opt->port);
  }
  const union MHD_DaemonInfo* info = d->mhd->MHD_get_daemon_info(d->daemon, MHD_DAEMON_INFO_BIND_PORT);
  d->port = info ? info->port : opt->port;
  *out = d;
  return 0;
}

int ne_dashboard_port(const ne_dashboard* d) { return d->port; }

void ne_dashboard_stop(ne_dashboard* d) {
  if (!d) return;
  if (d->daemon) d->mhd->MHD_stop_daemon(d->daemon);
  for (int i = 0; i < d->content.n_paths; i++) ne_free(d->content.paths[i]);
  ne_free(d->content.paths);
  ne_free(d->content.redis_url);
  ne_free(d);
}

#else  // built without libmicrohttpd: the API exists and says so

struct ne_dashboard {
  int port;
};

int ne_dashboard_start(const ne_dashboard_options* opt, ne_dashboard** out, char* errstr) {
  (void)opt;
  *out = NULL;
  return ne__set_error(errstr, NE_EUNSUPPORTED,
                       "built without libmicrohttpd: no dashboard (install "
                       "libmicrohttpd-dev, i.e. scripts/install-deps, and rebuild)");
}

int ne_dashboard_port(const ne_dashboard* d) { return d->port; }

void ne_dashboard_stop(ne_dashboard* d) { ne_free(d); }

#endif
