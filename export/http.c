// SPDX-License-Identifier: GPL-2.0
/*
 * The /metrics endpoint on libmicrohttpd's own polling thread: a slow or
 * stalled client holds only its connection (until the timeout), never the
 * tracing loop, which publishes a new exposition each interval.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <netinet/in.h>
#include "http.h"

bool pc_http_parse_listen(const char *arg, struct sockaddr_storage *sa, char *why, size_t len)
{
	struct sockaddr_in *in4 = (struct sockaddr_in *)sa;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)sa;
	const char *colon = strrchr(arg, ':'), *host = arg;
	char addr[INET6_ADDRSTRLEN], *end;
	size_t host_len = colon ? (size_t)(colon - arg) : 0;
	unsigned long port;

	memset(sa, 0, sizeof(*sa));
	if (!colon || !colon[1]) {
		snprintf(why, len, "give ADDR:PORT, e.g. 127.0.0.1:9863");
		return false;
	}
	errno = 0;
	port = strtoul(colon + 1, &end, 10);
	/* 0: the kernel picks a free port, which pc_http_port says. */
	if (errno || *end || colon[1] < '0' || colon[1] > '9' || port > 65535) {
		snprintf(why, len, "'%s' is not a port (0 to 65535)", colon + 1);
		return false;
	}
	if (host_len >= 2 && host[0] == '[' && host[host_len - 1] == ']') {
		host++;
		host_len -= 2;
	}
	if (host_len == 0 || host_len >= sizeof(addr)) {
		snprintf(why, len, "give the address before :PORT, e.g. 127.0.0.1");
		return false;
	}
	memcpy(addr, host, host_len);
	addr[host_len] = '\0';
	if (inet_pton(AF_INET, addr, &in4->sin_addr) == 1) {
		in4->sin_family = AF_INET;
		in4->sin_port = htons((uint16_t)port);
		return true;
	}
	if (host != arg && inet_pton(AF_INET6, addr, &in6->sin6_addr) == 1) {
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons((uint16_t)port);
		return true;
	}
	snprintf(why, len, "'%s' is not a numeric IPv4 address or [IPv6] address", addr);
	return false;
}

#ifdef PTECHECK_HAVE_MICROHTTPD
#include <microhttpd.h>
#include "metrics.h"

struct pc_http {
	struct MHD_Daemon *d;
	pthread_mutex_t lock; /* body and len: published by the loop, read by scrapes */
	char *body;
	size_t len;
};

static enum MHD_Result answer(struct MHD_Connection *c, unsigned int status, const char *type,
			      char *body, size_t len, const char *allow)
{
	struct MHD_Response *resp =
		MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
	enum MHD_Result ret;

	if (!resp) {
		free(body);
		return MHD_NO;
	}
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	if (allow)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW, allow);
	ret = MHD_queue_response(c, status, resp);
	MHD_destroy_response(resp);
	return ret;
}

static enum MHD_Result answer_text(struct MHD_Connection *c, unsigned int status, const char *text,
				   const char *allow)
{
	char *body = strdup(text);

	return body ? answer(c, status, "text/plain; charset=utf-8", body, strlen(body), allow)
		    : MHD_NO;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
				  const char *method, const char *version, const char *upload,
				  size_t *upload_size, void **con_cls)
{
	static int seen; /* marks a connection's request as begun */
	struct pc_http *h = cls;
	bool get = !strcmp(method, MHD_HTTP_METHOD_GET) || !strcmp(method, MHD_HTTP_METHOD_HEAD);
	bool published;
	char *body;
	size_t len;

	(void)version;
	(void)upload;
	if (!*con_cls) {
		*con_cls = &seen;
		return MHD_YES;
	}
	if (*upload_size) {
		*upload_size = 0; /* a body is not wanted: read and dropped */
		return MHD_YES;
	}
	if (!get)
		return answer_text(c, MHD_HTTP_METHOD_NOT_ALLOWED, "only GET /metrics\n",
				   "GET, HEAD");
	if (strcmp(url, "/metrics"))
		return answer_text(c, MHD_HTTP_NOT_FOUND, "not found: ptecheck serves /metrics\n",
				   NULL);
	pthread_mutex_lock(&h->lock);
	published = h->body != NULL;
	len = h->len;
	body = published ? malloc(len ? len : 1) : NULL;
	if (body)
		memcpy(body, h->body, len);
	pthread_mutex_unlock(&h->lock);
	/* Before the first exposition (the session still attaching): not yet. */
	if (!published)
		return answer_text(c, MHD_HTTP_SERVICE_UNAVAILABLE, "not tracing yet\n", NULL);
	if (!body)
		return MHD_NO;
	return answer(c, MHD_HTTP_OK, PC_METRICS_CONTENT_TYPE, body, len, NULL);
}

int pc_http_start(struct pc_http **out, const struct sockaddr_storage *sa)
{
	struct pc_http *h = calloc(1, sizeof(*h));
	/* No MHD_USE_ERROR_LOG: bad clients are not news on stderr, and a
	   failure to start is said by the caller, with its errno. */
	unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO;
	uint16_t port = sa->ss_family == AF_INET6 ? ((const struct sockaddr_in6 *)sa)->sin6_port
						  : ((const struct sockaddr_in *)sa)->sin_port;

	if (!h)
		return -ENOMEM;
	pthread_mutex_init(&h->lock, NULL);
	if (sa->ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	errno = 0;
	h->d = MHD_start_daemon(flags, ntohs(port), NULL, NULL, on_request, h, MHD_OPTION_SOCK_ADDR,
				(struct sockaddr *)sa, MHD_OPTION_CONNECTION_LIMIT,
				(unsigned int)PC_HTTP_MAX_CONNECTIONS,
				MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)PC_HTTP_TIMEOUT_S,
				MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)PC_HTTP_REQUEST_MAX,
				MHD_OPTION_END);
	if (!h->d) {
		int err = errno ? errno : EADDRNOTAVAIL;

		pthread_mutex_destroy(&h->lock);
		free(h);
		return -err;
	}
	*out = h;
	return 0;
}

int pc_http_port(const struct pc_http *h)
{
	const union MHD_DaemonInfo *i = MHD_get_daemon_info(h->d, MHD_DAEMON_INFO_BIND_PORT);

	return i && i->port ? i->port : -ENOTCONN;
}

int pc_http_publish(struct pc_http *h, const char *body, size_t len)
{
	char *copy = malloc(len ? len : 1), *old;

	if (!copy)
		return -ENOMEM;
	memcpy(copy, body, len);
	pthread_mutex_lock(&h->lock);
	old = h->body;
	h->body = copy;
	h->len = len;
	pthread_mutex_unlock(&h->lock);
	free(old);
	return 0;
}

void pc_http_stop(struct pc_http *h)
{
	if (!h)
		return;
	MHD_stop_daemon(h->d);
	pthread_mutex_destroy(&h->lock);
	free(h->body);
	free(h);
}
#endif
