/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ptecheck export's HTTP endpoint (libmicrohttpd): GET /metrics answers the
 * exposition last published (503 before the first), anything else 404
 * (other paths) or 405 (other methods).  Bounded: connections at once, seconds per connection,
 * bytes per request.  Built only where libmicrohttpd is (PTECHECK_HAVE_MICROHTTPD).
 */
#ifndef PTECHECK_EXPORT_HTTP_H
#define PTECHECK_EXPORT_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

#define PC_HTTP_MAX_CONNECTIONS 128
#define PC_HTTP_TIMEOUT_S	10
#define PC_HTTP_REQUEST_MAX	16384 /* bytes of a request's line and headers */

struct pc_http;

/* "ADDR:PORT" ("127.0.0.1:9863", "[::1]:9863"), numeric only, into sa;
   false with the reason in why.  PORT 0: the kernel picks one. */
bool pc_http_parse_listen(const char *arg, struct sockaddr_storage *sa, char *why, size_t len);
#ifdef PTECHECK_HAVE_MICROHTTPD
/* Serves on sa from a thread of its own: 0, or -errno (EADDRINUSE ...). */
int pc_http_start(struct pc_http **out, const struct sockaddr_storage *sa);
/* The port it serves on (the kernel's pick for port 0), or -errno. */
int pc_http_port(const struct pc_http *h);
/* What GET /metrics answers from now on (copied). */
int pc_http_publish(struct pc_http *h, const char *body, size_t len);
void pc_http_stop(struct pc_http *h);
#endif

#endif
