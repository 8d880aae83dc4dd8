// SPDX-License-Identifier: GPL-2.0
#include <pthread.h>
#include <bpf/libbpf.h>
#include "detach.h"

/* Threads at most: more than the links a session has (about 40) is no gain. */
#define DETACH_THREADS 64

static void *destroy_one(void *link)
{
	bpf_link__destroy(link);
	return NULL;
}

void pc_links_destroy(struct pc_session_link *links, int n)
{
	pthread_t tid[DETACH_THREADS];

	for (int base = 0; base < n; base += DETACH_THREADS) {
		int m = n - base < DETACH_THREADS ? n - base : DETACH_THREADS;
		bool started[DETACH_THREADS];

		for (int i = 0; i < m; i++) {
			struct bpf_link *l = links[base + i].link;

			started[i] = pthread_create(&tid[i], NULL, destroy_one, l) == 0;
			if (!started[i])
				bpf_link__destroy(l);
		}
		for (int i = 0; i < m; i++)
			if (started[i])
				pthread_join(tid[i], NULL);
	}
}
