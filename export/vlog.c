// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include "vlog.h"

static FILE *open_log(const char *path)
{
	return path ? fopen(path, "ae") : stderr;
}

int pc_vlog_open(struct pc_vlog *v, const char *path, unsigned int max_per_s)
{
	*v = (struct pc_vlog){.path = path, .max_per_s = max_per_s};
	v->f = open_log(path);
	return v->f ? 0 : -errno;
}

int pc_vlog_reopen(struct pc_vlog *v)
{
	FILE *f;

	if (!v->path)
		return 0;
	f = open_log(v->path);
	if (!f)
		return -errno;
	fclose(v->f);
	v->f = f;
	return 0;
}

/* One line of obj (taken), stamped; a full line or nothing. */
static void put(struct pc_vlog *v, json_t *obj)
{
	char *line;

	if (!obj)
		return;
	json_object_set_new(obj, "time", json_integer((json_int_t)time(NULL)));
	line = json_dumps(obj, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(obj);
	if (!line)
		return;
	fprintf(v->f, "%s\n", line);
	fflush(v->f);
	free(line);
}

/* Whether a line may go out now; the second's first says what the last one
   held back. */
static bool admit(struct pc_vlog *v)
{
	time_t now = time(NULL);

	if (now != v->second) {
		v->second = now;
		v->in_second = 0;
		if (v->suppressed)
			put(v, json_pack("{sI}", "suppressed", (json_int_t)v->suppressed));
		v->suppressed = 0;
	}
	if (v->in_second >= v->max_per_s) {
		v->suppressed++;
		return false;
	}
	v->in_second++;
	return true;
}

static json_t *hex(unsigned long long x)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "0x%llx", x);
	return json_string(buf);
}

static json_t *stack(const struct pc_evidence *e)
{
	json_t *a = json_array();

	for (int i = 0; a && i < e->n_frames && i < PC_EVIDENCE_FRAMES; i++)
		json_array_append_new(a, e->frames[i].sym[0] ? json_string(e->frames[i].sym)
							     : hex(e->frames[i].addr));
	return a;
}

void pc_vlog_violation(struct pc_vlog *v, const char *check, const char *tier,
		       const struct pc_evidence *e)
{
	if (!admit(v))
		return;
	put(v,
	    json_pack("{ss ss si so so so so ss so}", "check", check, "tier", tier, "pid", e->pid,
		      "addr", hex(e->addr), "new_addr", hex(e->new_addr), "expected",
		      hex(e->expected), "seen", hex(e->seen), "what", e->what, "stack", stack(e)));
}

void pc_vlog_splat(struct pc_vlog *v, const struct pc_kmsg_splat *sp)
{
	json_t *lines;

	if (!admit(v))
		return;
	lines = json_array();
	for (size_t i = 0; lines && i < sp->nlines; i++)
		json_array_append_new(lines, json_string(sp->lines[i]));
	put(v, json_pack("{ss ss ss si ss so}", "check", "kernel-log", "tier", PC_TIER_KMSG, "rule",
			 sp->rule, "pid", sp->pid, "comm", sp->comm, "lines", lines));
}

void pc_vlog_close(struct pc_vlog *v)
{
	if (!v->f)
		return;
	if (v->suppressed)
		put(v, json_pack("{sI}", "suppressed", (json_int_t)v->suppressed));
	if (v->f != stderr)
		fclose(v->f);
	v->f = NULL;
}
