// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel log matcher (kmsg.h, docs/kernel-log.md): the /dev/kmsg record
 * reader and parser, and the scanner that groups a report's lines into a
 * splat.  The rules are kmsg_rules.c, the shape of a report's lines
 * kmsg_report.c.
 *
 * Grouping works on the shape the kernel gives its reports (lib/bug.c,
 * kernel/panic.c, lib/dump_stack.c, arch/x86/kernel/dumpstack.c, mm/debug.c):
 *
 *	[dump_page() lines, "page dumped because: VM_BUG_ON_FOLIO(...)"]	lead-in
 *	"------------[ cut here ]------------"					cut
 *	[WARN() message]
 *	"WARNING: mm/rmap.c:1234 at ..." / "kernel BUG at ..." / "BUG: ..."	headline
 *	"Oops: ..." / "Internal error: ..." / "Kernel panic - not syncing"	follower
 *	"CPU: 1 UID: 0 PID: 42 Comm: x ...", registers, "Call Trace:", " </TASK>"
 *	"---[ end trace 0000000000000000 ]---"					end
 *
 * A fail line starts a splat unless it continues the open one (same
 * printk caller when the kernel logs callers): a follower always does; a
 * headline or lead-in does while the open splat began with a lead-in and
 * has not seen its headline yet.  Leading lines (the cut line and the
 * WARN message, or the dump_page() lines) are taken from a short history
 * of lines outside any splat.  The open splat takes the lines after it
 * until "---[ end", until " </TASK>" when no end line is due, until the
 * next report starts (cut line, headline or separator), until a gap of
 * PC_KMSG_SPLAT_GAP_USEC, or for PC_KMSG_SPLAT_SPAN_MAX lines.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kmsg.h"
#include "kmsg_report.h"
#include "kmsg_text.h"

/* Lines kept outside splats, looked back on for a splat's leading lines. */
#define RING_MAX      16
#define CUT_LOOKBACK  4	 /* cut line (or separator) to headline: the WARN message */
#define DUMP_LOOKBACK 16 /* dump_page()'s first line to "page dumped because" */
/* A splat begun by a lead-in waits this many lines for its headline. */
#define LEADIN_MAX 64
/* A /dev/kmsg record is at most 2048 bytes (PRINTK_MESSAGE_MAX) since 5.10, 8192 before. */
#define KMSG_READ_MAX 8192

/* ---- the scanner --------------------------------------------------------- */

struct lctx {
	unsigned long long seq, ts;
	int level, has_ts;
	char caller[PC_KMSG_CALLER_MAX];
};

struct ring_line {
	char *text;
	struct lctx ctx;
};

struct pc_kmsg_scan {
	const struct pc_kmsg_rules *rules;
	int match_user; /* judge records user space wrote too */
	struct pc_kmsg_stats st;
	struct pc_kmsg_splat **splats;
	size_t nsplats, cap;

	/* The open splat, stored in splats[] or (past the cap) only counted. */
	struct pc_kmsg_splat *cur;
	int cur_stored;
	int cur_awaiting;   /* begun by a lead-in, headline not seen yet */
	int cur_expect_end; /* a cut line or oops seen: "---[ end" is due */
	int cur_expect_sep; /* a KASAN-style report: ends at its "=====" line */
	size_t cur_span, cur_await_lines;
	unsigned long long cur_last_ts;
	int cur_has_ts;

	/* A continuation line: 'c' record, then '+' records join it. */
	struct kmsg_sbuf pend;
	int have_pend;
	struct lctx pend_ctx;

	struct ring_line ring[RING_MAX];
	size_t nring;

	struct kmsg_sbuf msg, work;
	int epipe_pending;
	unsigned long long epipe_n;
};

int pc_kmsg_scan_new(struct pc_kmsg_scan **out, const struct pc_kmsg_rules *r)
{
	struct pc_kmsg_scan *s = calloc(1, sizeof(*s));

	*out = s;
	if (!s)
		return -ENOMEM;
	s->rules = r;
	return 0;
}

static void splat_free(struct pc_kmsg_splat *sp)
{
	size_t i;

	if (!sp)
		return;
	for (i = 0; i < sp->nlines; i++)
		free(sp->lines[i]);
	free(sp->lines);
	free(sp);
}

void pc_kmsg_scan_free(struct pc_kmsg_scan *s)
{
	size_t i;

	if (!s)
		return;
	if (s->cur && !s->cur_stored)
		splat_free(s->cur);
	for (i = 0; i < s->nsplats; i++)
		splat_free(s->splats[i]);
	free(s->splats);
	for (i = 0; i < s->nring; i++)
		free(s->ring[i].text);
	free(s->pend.p);
	free(s->msg.p);
	free(s->work.p);
	free(s);
}

size_t pc_kmsg_scan_nsplats(const struct pc_kmsg_scan *s)
{
	return s->nsplats;
}

const struct pc_kmsg_splat *pc_kmsg_scan_splat(const struct pc_kmsg_scan *s, size_t i)
{
	return i < s->nsplats ? s->splats[i] : NULL;
}

const struct pc_kmsg_stats *pc_kmsg_scan_stats(const struct pc_kmsg_scan *s)
{
	return &s->st;
}

static int same_caller(const char *a, const char *b)
{
	return !*a || !*b || !strcmp(a, b);
}

static void close_cur(struct pc_kmsg_scan *s)
{
	if (!s->cur)
		return;
	s->cur->closed = 1;
	if (!s->cur_stored)
		splat_free(s->cur);
	s->cur = NULL;
}

static void ring_push(struct pc_kmsg_scan *s, const char *raw, const struct lctx *c)
{
	char *t = strdup(raw);

	/* Out of memory: the line is not available as a leading line; nothing else. */
	if (!t)
		return;
	if (s->nring == RING_MAX) {
		free(s->ring[0].text);
		memmove(&s->ring[0], &s->ring[1], (RING_MAX - 1) * sizeof(s->ring[0]));
		s->nring--;
	}
	s->ring[s->nring].text = t;
	s->ring[s->nring].ctx = *c;
	s->nring++;
}

/*
 * Walks the ring back from *i to the previous line of caller (the lines of
 * other callers are not looked at), or NULL at its start.
 */
static const struct ring_line *ring_prev(const struct pc_kmsg_scan *s, size_t *i,
					 const char *caller)
{
	while (*i > 0) {
		const struct ring_line *l = &s->ring[--*i];

		if (same_caller(l->ctx.caller, caller))
			return l;
	}
	return NULL;
}

/* A fail line that is a WARN() message: a cut line just before it. */
static int after_cut(const struct pc_kmsg_scan *s, const struct lctx *c)
{
	const struct ring_line *l;
	size_t i = s->nring, seen;
	enum kmsg_kind k;

	for (seen = 0; seen < CUT_LOOKBACK && (l = ring_prev(s, &i, c->caller)); seen++) {
		k = kmsg_line_kind(l->text);
		if (k == K_CUT)
			return 1;
		if (k != K_OTHER)
			return 0;
	}
	return 0;
}

/*
 * The first ring line of a splat's leading lines, or nring: for "...
 * dumped because" the first line of the dump, else a cut line or separator
 * (*sep) a few lines up.
 */
static size_t find_leading(const struct pc_kmsg_scan *s, const char *raw, const struct lctx *c,
			   int *sep)
{
	int dump = strstr(raw, " dumped because: ") != NULL;
	size_t i = s->nring, seen, lim = dump ? DUMP_LOOKBACK : CUT_LOOKBACK;
	const struct ring_line *l;
	enum kmsg_kind k;

	*sep = 0;
	for (seen = 0; seen < lim && (l = ring_prev(s, &i, c->caller)); seen++) {
		k = kmsg_line_kind(l->text);
		if (k == K_END || k == K_HEAD || k == K_FOLLOW)
			break;
		if (dump && kmsg_is_dump_start(l->text)) {
			/* "page does not match folio" comes just before "page: refcount:" */
			if (i > 0 &&
			    kmsg_starts(s->ring[i - 1].text, "page does not match folio") &&
			    same_caller(s->ring[i - 1].ctx.caller, c->caller))
				i--;
			return i;
		}
		if (!dump && (k == K_CUT || k == K_SEP)) {
			*sep = k == K_SEP;
			return i;
		}
	}
	return s->nring;
}

/* Adds a line to the open splat; closes it at its end (unless leading). */
static void add_member(struct pc_kmsg_scan *s, const char *raw, const struct lctx *c,
		       enum kmsg_kind k, int fail, int leading)
{
	struct pc_kmsg_splat *sp = s->cur;
	const char *comm;
	size_t clen;
	int pid;

	s->cur_span++;
	if (fail)
		sp->nfail++;
	if (sp->nlines < PC_KMSG_SPLAT_MAX_LINES && (sp->lines[sp->nlines] = kmsg_display_dup(raw)))
		sp->nlines++;
	else
		sp->ncut++; /* past the cap (or out of memory): counted */
	kmsg_extract_task(raw, &pid, &comm, &clen);
	if (sp->pid < 0 && pid >= 0)
		sp->pid = pid;
	if (!sp->comm[0] && comm)
		kmsg_display_copy(sp->comm, comm, clen);
	if (c->has_ts) {
		s->cur_last_ts = c->ts;
		s->cur_has_ts = 1;
	}
	if (k == K_CUT || k == K_FOLLOW)
		s->cur_expect_end = 1;
	if (k == K_HEAD || k == K_FOLLOW)
		s->cur_awaiting = 0;
	if (s->cur_awaiting && ++s->cur_await_lines > LEADIN_MAX)
		s->cur_awaiting = 0;
	if (leading)
		return;
	if (k == K_END || (k == K_SEP && s->cur_expect_sep) ||
	    (k == K_TASKEND && !s->cur_expect_end && !s->cur_expect_sep) ||
	    s->cur_span >= PC_KMSG_SPLAT_SPAN_MAX)
		close_cur(s);
}

static void start_splat(struct pc_kmsg_scan *s, const char *raw, const struct lctx *c,
			const char *rule, enum kmsg_kind k, int leadin)
{
	struct pc_kmsg_splat *sp = calloc(1, sizeof(*sp));
	size_t first, i, j;
	int sep;

	s->st.splats++;
	if (sp)
		sp->lines = calloc(PC_KMSG_SPLAT_MAX_LINES, sizeof(*sp->lines));
	if (!sp || !sp->lines) {
		/* Out of memory: the splat is counted, as dropped; its lines are not kept. */
		splat_free(sp);
		s->st.splats_dropped++;
		return;
	}
	s->cur_stored = 0;
	if (s->nsplats < PC_KMSG_MAX_SPLATS && s->nsplats == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 16;
		struct pc_kmsg_splat **v = realloc(s->splats, cap * sizeof(*v));

		if (v) {
			s->splats = v;
			s->cap = cap;
		}
	}
	if (s->nsplats < PC_KMSG_MAX_SPLATS && s->nsplats < s->cap) {
		s->splats[s->nsplats++] = sp;
		s->cur_stored = 1;
	} else {
		/* Past PC_KMSG_MAX_SPLATS: grouped as usual, counted, freed when closed. */
		s->st.splats_dropped++;
	}
	snprintf(sp->rule, sizeof(sp->rule), "%s", rule);
	sp->seq = c->seq;
	sp->ts_usec = c->ts;
	sp->level = c->level;
	sp->pid = -1;
	memcpy(sp->caller, c->caller, sizeof(sp->caller));
	s->cur = sp;
	s->cur_span = 0;
	s->cur_awaiting = leadin;
	s->cur_await_lines = 0;
	s->cur_expect_end = 0;
	s->cur_expect_sep = 0;
	s->cur_has_ts = 0;

	/* Leading lines move from the ring into the splat. */
	first = find_leading(s, raw, c, &sep);
	for (i = j = first; i < s->nring; i++) {
		struct ring_line *l = &s->ring[i];

		if (same_caller(l->ctx.caller, c->caller)) {
			add_member(s, l->text, &l->ctx, kmsg_line_kind(l->text), 0, 1);
			free(l->text);
		} else {
			s->ring[j++] = *l;
		}
	}
	s->nring = j;
	if (sep && (kmsg_starts(raw, "BUG: KASAN: ") || kmsg_starts(raw, "BUG: KFENCE: ") ||
		    kmsg_starts(raw, "BUG: KMSAN: ")))
		s->cur_expect_sep = 1;
	if (k == K_FOLLOW)
		s->cur_expect_end = 1;
	add_member(s, raw, c, k, 1, 0);
}

/* One logical kernel line. */
static void process_line(struct pc_kmsg_scan *s, const char *raw, const struct lctx *c)
{
	const char *rule = NULL;
	int v = pc_kmsg_classify(s->rules, raw, &rule);
	enum kmsg_kind k = kmsg_line_kind(raw);
	int mine = s->cur && same_caller(s->cur->caller, c->caller);

	s->st.lines++;
	if (v == PC_KMSG_FAIL)
		s->st.fail_lines++;
	else if (v == PC_KMSG_IGNORE)
		s->st.ignored++;

	if (mine && c->has_ts && s->cur_has_ts && c->ts > s->cur_last_ts + PC_KMSG_SPLAT_GAP_USEC) {
		close_cur(s);
		mine = 0;
	}

	if (v == PC_KMSG_FAIL) {
		int leadin = k == K_OTHER && (strstr(raw, " dumped because: ") || after_cut(s, c));

		if (mine && (k == K_FOLLOW || (s->cur_awaiting && (k == K_HEAD || leadin)))) {
			add_member(s, raw, c, k, 1, 0);
			return;
		}
		/* One open splat at a time: another report (or caller) ends it. */
		close_cur(s);
		start_splat(s, raw, c, rule, k, leadin);
		return;
	}
	if (mine) {
		int starts_report = k == K_HEAD || k == K_CUT || (k == K_SEP && !s->cur_expect_sep);

		if (!(starts_report && !s->cur_awaiting)) {
			add_member(s, raw, c, k, 0, 0);
			return;
		}
		close_cur(s);
	}
	ring_push(s, raw, c);
}

static void flush_pend(struct pc_kmsg_scan *s)
{
	if (!s->have_pend)
		return;
	s->have_pend = 0;
	process_line(s, s->pend.p, &s->pend_ctx);
}

/*
 * Processes each '\n'-terminated line of text (writable, NUL-terminated,
 * not s->pend); the last part is held as a continuation line if hold, else
 * processed (unless empty after a newline).
 */
static int take_lines(struct pc_kmsg_scan *s, char *text, size_t len, const struct lctx *c,
		      int hold)
{
	char *p = text, *nl;

	while ((nl = memchr(p, '\n', len - (p - text)))) {
		*nl = '\0';
		process_line(s, p, c);
		p = nl + 1;
	}
	if (hold) {
		if (kmsg_sb_clear(&s->pend) || kmsg_sb_add(&s->pend, p, len - (p - text))) {
			process_line(s, p, c);
			return -ENOMEM;
		}
		s->pend_ctx = *c;
		s->have_pend = 1;
		return 0;
	}
	if (*p || p == text)
		process_line(s, p, c);
	return 0;
}

/* Appends p unescaped (\xNN); a NUL stays "\x00", as lines are C strings. */
static int decode(struct kmsg_sbuf *out, const char *p, size_t n)
{
	size_t i;
	int rc = kmsg_sb_reserve(out, n);

	for (i = 0; i < n && !rc; i++) {
		unsigned char ch = p[i];

		if (ch == '\\' && i + 3 < n && p[i + 1] == 'x' &&
		    isxdigit((unsigned char)p[i + 2]) && isxdigit((unsigned char)p[i + 3])) {
			char hex[3] = {p[i + 2], p[i + 3], 0};

			ch = (unsigned char)strtoul(hex, NULL, 16);
			i += 3;
		}
		if (ch)
			rc = kmsg_sb_add(out, (const char *)&ch, 1);
		else
			rc = kmsg_sb_add(out, "\\x00", 4);
	}
	return rc;
}

static void settle_epipe(struct pc_kmsg_scan *s)
{
	if (!s->epipe_pending)
		return;
	s->epipe_pending = 0;
	if (s->epipe_n)
		s->st.lost_records += s->epipe_n;
	else
		s->st.lost_unknown++;
}

void pc_kmsg_scan_lost(struct pc_kmsg_scan *s, unsigned long long n)
{
	s->st.epipe++;
	if (s->epipe_pending) {
		/* Overwritten again before a record could be read: the same loss. */
		s->epipe_n = s->epipe_n && n ? s->epipe_n + n : 0;
		return;
	}
	s->st.lost_events++;
	s->epipe_pending = 1;
	s->epipe_n = n;
}

static void account_seq(struct pc_kmsg_scan *s, unsigned long long seq)
{
	struct pc_kmsg_stats *st = &s->st;

	if (!st->have_seq) {
		st->have_seq = 1;
		st->first_seq = seq;
		settle_epipe(s);
	} else if (seq > st->last_seq + 1) {
		st->lost_records += seq - st->last_seq - 1;
		if (!st->have_lost_range) {
			st->have_lost_range = 1;
			st->lost_first = st->last_seq + 1;
			st->lost_last = seq - 1;
		}
		if (s->epipe_pending)
			s->epipe_pending = 0; /* the gap is what the EPIPE lost */
		else
			st->lost_events++;
	} else {
		if (seq != st->last_seq + 1)
			st->seq_resets++;
		settle_epipe(s);
	}
	st->last_seq = seq;
}

struct kmsg_hdr {
	unsigned long long prio, seq, ts;
	int cont, frag;
	char caller[PC_KMSG_CALLER_MAX];
};

static int parse_ull(const char **pp, const char *end, unsigned long long *v)
{
	const char *p = *pp;
	unsigned long long x = 0;

	if (p >= end || !isdigit((unsigned char)*p))
		return -1;
	for (; p < end && isdigit((unsigned char)*p); p++) {
		unsigned int d = *p - '0';

		if (x > (ULLONG_MAX - d) / 10)
			return -1;
		x = x * 10 + d;
	}
	*pp = p;
	*v = x;
	return 0;
}

/* "PRIO,SEQ,TS_USEC,FLAGS[,KEY=VALUE...];": 0 and *msg after the ';', or -1. */
static int parse_header(const char *rec, size_t len, struct kmsg_hdr *h, const char **msg)
{
	const char *semi = memchr(rec, ';', len), *nl = memchr(rec, '\n', len);
	const char *p = rec, *f;

	memset(h, 0, sizeof(*h));
	if (!semi || (nl && nl < semi))
		return -1;
	if (parse_ull(&p, semi, &h->prio) || *p++ != ',' || parse_ull(&p, semi, &h->seq) ||
	    *p++ != ',' || parse_ull(&p, semi, &h->ts) || *p++ != ',' || p >= semi)
		return -1;
	for (f = p; p < semi && *p != ','; p++) {
		if (*p == 'c')
			h->cont = 1;
		else if (*p == '+')
			h->frag = 1;
	}
	if (p == f || h->prio > INT_MAX)
		return -1;
	while (p < semi) {
		const char *e;

		p++; /* ',' */
		e = memchr(p, ',', semi - p);
		if (!e)
			e = semi;
		if (e - p > 7 && !strncmp(p, "caller=", 7) &&
		    (size_t)(e - p - 7) < sizeof(h->caller)) {
			memcpy(h->caller, p + 7, e - p - 7);
			h->caller[e - p - 7] = '\0';
		}
		p = e;
	}
	*msg = semi + 1;
	return 0;
}

static int scan_malformed(struct pc_kmsg_scan *s, const char *rec, size_t len)
{
	struct lctx c = {.level = -1};

	s->st.malformed++;
	flush_pend(s);
	if (len && rec[len - 1] == '\n')
		len--;
	if (kmsg_sb_clear(&s->msg) || decode(&s->msg, rec, len))
		return -ENOMEM;
	return take_lines(s, s->msg.p, s->msg.len, &c, 0);
}

void pc_kmsg_scan_match_user(struct pc_kmsg_scan *s, int on)
{
	s->match_user = on;
}

int pc_kmsg_scan_record(struct pc_kmsg_scan *s, const char *rec, size_t len)
{
	const char *msg, *end = rec + len, *p, *nl;
	struct kmsg_hdr h;
	struct lctx c;
	int extra = 0, rc;

	s->st.records++;
	if (parse_header(rec, len, &h, &msg))
		return scan_malformed(s, rec, len);
	account_seq(s, h.seq);
	if (h.prio >> 3) {
		/* Written to /dev/kmsg by user space: the kernel forbids facility 0 there. */
		s->st.user_records++;
		if (!s->match_user)
			return 0;
	}
	memset(&c, 0, sizeof(c));
	c.seq = h.seq;
	c.ts = h.ts;
	c.level = h.prio & 7;
	c.has_ts = 1;
	memcpy(c.caller, h.caller, sizeof(c.caller));

	nl = memchr(msg, '\n', end - msg);
	if (kmsg_sb_clear(&s->msg) || decode(&s->msg, msg, (nl ? nl : end) - msg))
		return -ENOMEM;
	/* Dictionary lines start with a space; anything else is not the format. */
	for (p = nl ? nl + 1 : end; p < end; p = nl ? nl + 1 : end) {
		nl = memchr(p, '\n', end - p);
		if (*p == ' ') {
			s->st.dict_lines++;
		} else if ((nl ? nl : end) > p) {
			if (kmsg_sb_add(&s->msg, "\n", 1) ||
			    decode(&s->msg, p, (nl ? nl : end) - p))
				return -ENOMEM;
			extra = 1;
		}
	}
	if (extra)
		s->st.malformed++;

	if (h.frag && s->have_pend) {
		/* '+': a fragment of the line a 'c' record began (kernels before 4.9). */
		struct lctx pc = s->pend_ctx;

		s->have_pend = 0;
		if (kmsg_sb_clear(&s->work) || kmsg_sb_add(&s->work, s->pend.p, s->pend.len) ||
		    kmsg_sb_add(&s->work, s->msg.p, s->msg.len)) {
			process_line(s, s->pend.p, &pc);
			return -ENOMEM;
		}
		return take_lines(s, s->work.p, s->work.len, &pc, 1);
	}
	flush_pend(s);
	rc = take_lines(s, s->msg.p, s->msg.len, &c, h.cont || h.frag);
	return rc;
}

void pc_kmsg_scan_finish(struct pc_kmsg_scan *s)
{
	flush_pend(s);
	close_cur(s);
	settle_epipe(s);
}

/* ---- /dev/kmsg ----------------------------------------------------------- */

int pc_kmsg_open_at_end(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC), err;

	if (fd < 0)
		return -errno;
	if (lseek(fd, 0, SEEK_END) < 0) {
		err = errno;
		close(fd);
		return -err;
	}
	return fd;
}

int pc_kmsg_drain(int fd, struct pc_kmsg_scan *s)
{
	char buf[KMSG_READ_MAX];
	ssize_t n;
	int rc;

	for (;;) {
		n = read(fd, buf, sizeof(buf));
		if (n > 0) {
			rc = pc_kmsg_scan_record(s, buf, n);
			if (rc)
				return rc;
			continue;
		}
		if (n == 0)
			return 0;
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN)
			return 0;
		if (errno == EPIPE) {
			pc_kmsg_scan_lost(s, 0);
			continue;
		}
		return -errno;
	}
}
