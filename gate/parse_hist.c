// SPDX-License-Identifier: GPL-2.0
/*
 * ptecheck gate: a report's run-wide histograms (docs/report-schema.json):
 * the id every comparison keys on (schema 8; derived for older reports
 * from the titles they used), title, kind, --by key, batch labels and
 * buckets that must be slots of the kind, in order, adding up to the
 * total.
 */
#include <limits.h>
#include <string.h>
#include "cli.h"
#include "gate_input.h"
#include "json_out.h"

/* The fields of a histogram's key (c->where names it) into h. */
static int parse_key_fields(struct pc_field_ctx *c, json_t *k, struct pc_hist_report *h)
{
	char by[8];
	__u64 pid = 0;
	int mode;

	if (pc_field_not_object(c, k) || pc_field_str(c, k, "by", by, sizeof(by), true))
		return -1;
	mode = pc_hist_by_parse(by);
	if (mode < 0) {
		FERR(c, "by", "expected \"comm\" or \"pid\"");
		return -1;
	}
	h->by = (__u32)mode;
	if (json_object_get(k, "unattributed"))
		return pc_field_bool(c, k, "unattributed", &h->unattributed);
	if (mode == PC_BY_PID && pc_field_count(c, k, "pid", &pid))
		return -1;
	if (pid > UINT_MAX) {
		FERR(c, "pid", "%llu is no process id", (unsigned long long)pid);
		return -1;
	}
	h->pid = (__u32)pid;
	return pc_field_str(c, k, "comm", h->comm, sizeof(h->comm), true);
}

/* A batch histogram's labels (c->where names them) into h. */
static int parse_batch_fields(struct pc_field_ctx *c, json_t *bt, struct pc_hist_report *h)
{
	if (pc_field_not_object(c, bt) ||
	    pc_field_str(c, bt, "context", h->batch_ctx, sizeof(h->batch_ctx), true) ||
	    pc_field_str(c, bt, "source", h->batch_src, sizeof(h->batch_src), true))
		return -1;
	if (!*h->batch_ctx || !*h->batch_src) {
		FERR(c, *h->batch_ctx ? "source" : "context", "empty");
		return -1;
	}
	return 0;
}

/* A histogram's optional object at key, parsed by fn with c->where naming
   it: absent, nothing to read ("key": --by's key, absent when the
   histogram holds everything traced; "batch": a batch histogram's
   labels). */
static int parse_hist_part(struct pc_field_ctx *c, json_t *o, const char *key,
			   int (*fn)(struct pc_field_ctx *, json_t *, struct pc_hist_report *),
			   struct pc_hist_report *h)
{
	json_t *v = json_object_get(o, key);
	size_t wl = strlen(c->where);
	int err;

	if (!v)
		return 0;
	snprintf(c->where + wl, sizeof(c->where) - wl, ".%s", key);
	err = fn(c, v, h);
	c->where[wl] = '\0';
	return err;
}

/* The titles of schema 7 and older that had no batch labels or another id
   than their labels give; frozen: titles of today's reports are never
   looked up here. */
static const struct {
	const char *title, *id;
} legacy_ids[] = {
	{"mremap latency", "mremap/latency"},
	{"mremap TLB flushes per call", "mremap/tlb-flushes"},
	{"mremap present PTEs moved per call", "mremap/ptes-moved"},
	{"mremap PMD-level moves per call", "mremap/pmds-moved"},
	{"mremap PTEs per batch", "mremap/batch"},
	{"fault-around window per filemap_map_pages call", "filemap/window"},
	{"fault-around PTEs per set_pte_range", "filemap/batch"},
	{"file rmap pages per folio_add_file_rmap_ptes", "filemap/rmap"},
	{"fault-around batches by folio order", "filemap/folio-order"},
	{"fault-around large-folio batches, by order", "filemap/large-order"},
	{"fault-around batches mapping all they could, by order", "filemap/full-order"},
	{"contpte_ptep_get: entries the gather loop reads", "contpte/gather-reads"},
	{"contpte_test_and_clear_young_ptes nr", "contpte/clear-young"},
};

void pc_gate_legacy_hist_id(char *buf, size_t len, const struct pc_hist_report *h)
{
	char part[PC_HIST_ID_MAX - sizeof("legacy/")];

	for (size_t i = 0; i < sizeof(legacy_ids) / sizeof(legacy_ids[0]); i++)
		if (!strcmp(h->name, legacy_ids[i].title)) {
			snprintf(buf, len, "%s", legacy_ids[i].id);
			return;
		}
	if (*h->batch_ctx && *h->batch_src) {
		pc_hist_batch_id(buf, len, h->batch_ctx, h->batch_src);
		return;
	}
	pc_hist_id_part(part, sizeof(part), h->name);
	snprintf(buf, len, "legacy/%s", *part ? part : "unnamed");
}

/* The histogram's id: read (schema 8), else derived once its labels are. */
static int hist_id(struct pc_field_ctx *c, json_t *o, struct pc_hist_report *h)
{
	if (c->schema < 8) {
		pc_gate_legacy_hist_id(h->id, sizeof(h->id), h);
		return 0;
	}
	if (pc_field_str(c, o, "id", h->id, sizeof(h->id), true))
		return -1;
	if (!pc_hist_id_valid(h->id)) {
		FERR(c, "id", "\"%s\" is no histogram id (parts of [a-z0-9_.-] joined by '/')",
		     h->id);
		return -1;
	}
	return 0;
}

int pc_gate_parse_hist(struct pc_field_ctx *c, json_t *o, struct pc_report *r)
{
	char name[64], unit[24], source[96], kindname[8];
	struct pc_hist_report *h;
	json_t *buckets, *b;
	__u64 total, sum = 0;
	bool in_kernel;
	int prev = -1;
	__u32 kind;
	size_t i;

	if (pc_field_not_object(c, o))
		return -1;
	if (pc_field_str(c, o, "name", name, sizeof(name), true) ||
	    pc_field_str(c, o, "unit", unit, sizeof(unit), false) ||
	    pc_field_str(c, o, "source", source, sizeof(source), false) ||
	    pc_field_bool(c, o, "in_kernel", &in_kernel) ||
	    pc_field_str(c, o, "kind", kindname, sizeof(kindname), false))
		return -1;
	if (!strcmp(kindname, "log2")) {
		kind = PC_HIST_LOG2;
	} else if (!strcmp(kindname, "linlog")) {
		kind = PC_HIST_LINLOG;
	} else {
		FERR(c, "kind", "expected \"log2\" or \"linlog\"");
		return -1;
	}
	buckets = pc_field_typed(c, o, "buckets", JSON_ARRAY);
	if (!buckets || pc_field_count(c, o, "total", &total))
		return -1;
	if (json_array_size(buckets) > PC_HIST_SLOTS) {
		FERR(c, "buckets", "%zu buckets, at most %d", json_array_size(buckets),
		     PC_HIST_SLOTS);
		return -1;
	}
	/* A placeholder id until the real one is read: the labels come first. */
	h = pc_report_add_hist(r, "pending", name, unit, source, in_kernel, kind);
	if (!h) {
		pc_set_err(c->err, c->errlen, "out of memory");
		return -1;
	}
	if (parse_hist_part(c, o, "key", parse_key_fields, h) ||
	    parse_hist_part(c, o, "batch", parse_batch_fields, h) || hist_id(c, o, h))
		return -1;
	json_array_foreach(buckets, i, b)
	{
		__u64 lo, hi, cnt;
		__u32 slot;
		size_t wl = strlen(c->where);

		snprintf(c->where + wl, sizeof(c->where) - wl, ".buckets[%zu]", i);
		if (!json_is_object(b)) {
			pc_set_err(c->err, c->errlen, "%s: expected an object", c->where);
			return -1;
		}
		if (pc_field_count(c, b, "low", &lo) || pc_field_count(c, b, "high", &hi) ||
		    pc_field_count(c, b, "count", &cnt))
			return -1;
		/* Bounds must be those of a slot of this kind, in order. */
		slot = pc_hist_slot(kind, lo);
		if (pc_hist_slot_low(kind, slot) != lo ||
		    pc_json_count(pc_hist_slot_high(kind, slot)) != hi) {
			pc_set_err(c->err, c->errlen, "%s: %llu..%llu is not a %s bucket", c->where,
				   (unsigned long long)lo, (unsigned long long)hi, kindname);
			return -1;
		}
		if ((int)slot <= prev) {
			pc_set_err(c->err, c->errlen, "%s: buckets out of order or repeated",
				   c->where);
			return -1;
		}
		prev = (int)slot;
		h->slots[slot] = cnt;
		sum = pc_sat_add(sum, cnt);
		c->where[wl] = '\0';
	}
	if (pc_json_count(sum) != total) {
		FERR(c, "total", "%llu, but the buckets add up to %llu", (unsigned long long)total,
		     (unsigned long long)pc_json_count(sum));
		return -1;
	}
	return 0;
}
