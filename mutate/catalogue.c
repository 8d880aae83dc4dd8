// SPDX-License-Identifier: GPL-2.0
/*
 * The catalogue header (catalogue.h): one line per key, in the contract's
 * order, each value checked where it is read so the message names its line.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "check_text.h"
#include "gate.h"
#include "catalogue.h"

#define PATCH_MAX_BYTES (4u << 20) /* a mutant is a few lines of diff */

/* A value checker: 0, or -1 with the reason (no position) in err. */
typedef int (*value_fn)(struct pc_mutant *m, const char *path, const char *v, char *err,
			size_t errlen);

static int copy_text(char *dst, size_t sz, const char *v, char *err, size_t errlen)
{
	if (strlen(v) >= sz) {
		pc_set_err(err, errlen, "value longer than %zu bytes", sz - 1);
		return -1;
	}
	strcpy(dst, v);
	return 0;
}

static int one_of(const char *v, const char *const *words, const char *what, char *err,
		  size_t errlen)
{
	char all[256] = "";

	for (int i = 0; words[i]; i++) {
		if (strcmp(v, words[i]) == 0)
			return 0;
		snprintf(all + strlen(all), sizeof(all) - strlen(all), "%s%s", i ? " " : "",
			 words[i]);
	}
	pc_set_err(err, errlen, "unknown %s '%s' (one of: %s)", what, v, all);
	return -1;
}

int pc_mutant_known_check(const char *name)
{
	const char *slash = strchr(name, '/');

	if (pc_check_find(name) >= 0)
		return 1;
	if (!slash || strcmp(slash, "/kernel-log") != 0)
		return 0;
	/* PATH/kernel-log: a path that has checks in the table. */
	for (int i = 0; i < PC_CHK__COUNT; i++)
		if (strncmp(pc_check_name(i), name, (size_t)(slash - name + 1)) == 0)
			return 1;
	return 0;
}

static int is_gate_rule(const char *rule)
{
	for (int i = 0; i < PC_GATE_RULE__COUNT; i++)
		if (strcmp(rule, pc_gate_rule_name(i)) == 0)
			return 1;
	return 0;
}

/* Splits v at spaces into names[], each accepted by ok(); at least one. */
static int name_list(const char *v, char (*names)[48], int *n, bool gate_ok, char *err,
		     size_t errlen)
{
	char buf[PC_MUTANT_TEXT], *save = NULL, *w;

	if (copy_text(buf, sizeof(buf), v, err, errlen))
		return -1;
	*n = 0;
	for (w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		bool gate = gate_ok && strncmp(w, "gate:", 5) == 0;

		if (gate ? !is_gate_rule(w + 5) : !pc_mutant_known_check(w)) {
			pc_set_err(err, errlen, "unknown %s '%s'", gate ? "gate rule" : "check",
				   gate ? w + 5 : w);
			return -1;
		}
		if (*n == PC_MUTANT_MAX_NAMES || strlen(w) >= sizeof(names[0])) {
			pc_set_err(err, errlen, "more than %d names, or a name too long",
				   PC_MUTANT_MAX_NAMES);
			return -1;
		}
		strcpy(names[(*n)++], w);
	}
	return 0;
}

static int v_mutant(struct pc_mutant *m, const char *path, const char *v, char *err, size_t errlen)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	size_t stem = strlen(base);

	if (stem > 6 && strcmp(base + stem - 6, ".patch") == 0)
		stem -= 6;
	if (strspn(v, "abcdefghijklmnopqrstuvwxyz0123456789-") != strlen(v)) {
		pc_set_err(err, errlen, "name '%s' is not [a-z0-9-]+", v);
		return -1;
	}
	if (strlen(v) != stem || strncmp(v, base, stem) != 0) {
		pc_set_err(err, errlen, "name '%s' is not the file's stem '%.*s'", v, (int)stem,
			   base);
		return -1;
	}
	return copy_text(m->name, sizeof(m->name), v, err, errlen);
}

static int v_bug(struct pc_mutant *m, const char *path, const char *v, char *err, size_t errlen)
{
	(void)path;
	return copy_text(m->bug, sizeof(m->bug), v, err, errlen);
}

static int v_class(struct pc_mutant *m, const char *path, const char *v, char *err, size_t errlen)
{
	static const char *const classes[] = {
		"write-bit",   "past-eof",   "gather-early-exit", "clear-bits",
		"rmap-count",  "rss-count",  "batch-lost",	  "fold",
		"clear-young", "fork-write", "zap-dirty",	  "soft-dirty",
		"other",       NULL,
	};

	(void)path;
	if (one_of(v, classes, "class", err, errlen))
		return -1;
	return copy_text(m->bug_class, sizeof(m->bug_class), v, err, errlen);
}

static int v_breaks(struct pc_mutant *m, const char *path, const char *v, char *err, size_t errlen)
{
	(void)path;
	return name_list(v, m->breaks, &m->n_breaks, false, err, errlen);
}

static int v_expect(struct pc_mutant *m, const char *path, const char *v, char *err, size_t errlen)
{
	(void)path;
	return name_list(v, m->expect, &m->n_expect, true, err, errlen);
}

static int v_arch(struct pc_mutant *m, const char *path, const char *v, char *err, size_t errlen)
{
	static const char *const arches[] = {"arm64", "x86_64", "all", NULL};

	(void)path;
	if (one_of(v, arches, "arch", err, errlen))
		return -1;
	return copy_text(m->arch, sizeof(m->arch), v, err, errlen);
}

/* `none`, or an upstream commit id (12 to 40 lowercase hex digits, the
   kernel's own short form at least) and its subject in quotes. */
static int v_reintroduces(struct pc_mutant *m, const char *path, const char *v, char *err,
			  size_t errlen)
{
	size_t hex = strspn(v, "0123456789abcdef"), len = strlen(v);

	(void)path;
	if (strcmp(v, "none") != 0 && (hex < 12 || hex > 40 || len < hex + 4 || v[hex] != ' ' ||
				       v[hex + 1] != '"' || v[len - 1] != '"')) {
		pc_set_err(err, errlen,
			   "'%s' is neither none nor COMMIT-ID \"subject\" (an id of 12 to 40 "
			   "hex digits, the subject not empty)",
			   v);
		return -1;
	}
	return copy_text(m->reintroduces, sizeof(m->reintroduces), v, err, errlen);
}

/* A mainline tag: v6.17, v6.18.2, v7.0-rc3. */
static bool kernel_tag(const char *v, size_t len)
{
	size_t i = 1, dots = 0;

	if (len < 4 || v[0] != 'v' || !isdigit((unsigned char)v[1]))
		return false;
	while (i < len && (isdigit((unsigned char)v[i]) || v[i] == '.')) {
		dots += v[i] == '.';
		if (v[i] == '.' && (i + 1 >= len || !isdigit((unsigned char)v[i + 1])))
			return false;
		i++;
	}
	if (dots < 1 || dots > 2)
		return false;
	if (i == len)
		return true;
	return len - i >= 4 && !strncmp(v + i, "-rc", 3) &&
	       strspn(v + i + 3, "0123456789") == len - i - 3;
}

/*
 * `none` for a mutant of no real bug; for one that reintroduces a fix,
 * "fixed in TAG; SOURCE; SOURCE[; ...]": the first mainline tag carrying
 * the fix, then where its id was confirmed, two sources at least (the
 * project's rule: never an id from one source), each an https:// address
 * or a mail's <Message-ID> (a list message, the way the kernel cites one).
 */
static int v_source(struct pc_mutant *m, const char *path, const char *v, char *err, size_t errlen)
{
	char buf[PC_MUTANT_TEXT], *save = NULL, *tok;
	const char *semi;
	int sources = 0;

	(void)path;
	if (!pc_mutant_is_real(m)) {
		if (strcmp(v, "none") != 0) {
			pc_set_err(err, errlen,
				   "'%s': a mutant that reintroduces none has Source: none", v);
			return -1;
		}
		return copy_text(m->source, sizeof(m->source), v, err, errlen);
	}
	semi = strchr(v, ';');
	if (strncmp(v, "fixed in ", 9) != 0 || !semi ||
	    !kernel_tag(v + 9, (size_t)(semi - v - 9))) {
		pc_set_err(err, errlen,
			   "'%.60s' does not begin 'fixed in TAG;' (a mainline tag: v6.17, "
			   "v7.0-rc3)",
			   v);
		return -1;
	}
	if ((size_t)(semi - v - 9) >= sizeof(m->fixed_in)) {
		pc_set_err(err, errlen, "fixed-in tag too long");
		return -1;
	}
	memcpy(m->fixed_in, v + 9, (size_t)(semi - v - 9));
	if (copy_text(buf, sizeof(buf), semi + 1, err, errlen))
		return -1;
	for (tok = strtok_r(buf, ";", &save); tok; tok = strtok_r(NULL, ";", &save)) {
		bool url, msgid;
		size_t n;

		while (*tok == ' ')
			tok++;
		for (n = strlen(tok); n && tok[n - 1] == ' '; n--)
			tok[n - 1] = '\0';
		url = n >= 12 && !strncmp(tok, "https://", 8);
		msgid = n >= 5 && tok[0] == '<' && tok[n - 1] == '>' && strchr(tok, '@');

		if (strchr(tok, ' ') || (!url && !msgid)) {
			pc_set_err(err, errlen,
				   "source %d '%.60s' is neither an https:// address nor a "
				   "<Message-ID>",
				   sources + 1, tok);
			return -1;
		}
		sources++;
	}
	if (sources < 2) {
		pc_set_err(err, errlen,
			   "%d source(s): a real bug's id is confirmed from two sources at least",
			   sources);
		return -1;
	}
	return copy_text(m->source, sizeof(m->source), v, err, errlen);
}

static int v_trigger(struct pc_mutant *m, const char *path, const char *v, char *err, size_t errlen)
{
	(void)path;
	return copy_text(m->trigger, sizeof(m->trigger), v, err, errlen);
}

static const struct {
	const char *key;
	value_fn fn;
} keys[] = {
	{"Mutant", v_mutant},
	{"Bug", v_bug},
	{"Class", v_class},
	{"Breaks", v_breaks},
	{"Expect", v_expect},
	{"Arch", v_arch},
	{"Reintroduces", v_reintroduces},
	{"Source", v_source},
	{"Trigger", v_trigger},
};
#define N_KEYS ((int)(sizeof(keys) / sizeof(keys[0])))

static int key_index(const char *line, size_t keylen)
{
	for (int i = 0; i < N_KEYS; i++)
		if (strlen(keys[i].key) == keylen && strncmp(line, keys[i].key, keylen) == 0)
			return i;
	return -1;
}

/* One header line (NUL-terminated, no newline) for key number *next. */
static int header_line(struct pc_mutant *m, const char *path, char *line, int *next, char *err,
		       size_t errlen)
{
	char *colon = strchr(line, ':'), *v;
	int k;

	if (line[0] == ' ' || line[0] == '\t') {
		pc_set_err(err, errlen, "continuation lines are not allowed (one line per value)");
		return -1;
	}
	if (!colon || colon == line) {
		pc_set_err(err, errlen, "not a 'Key: value' line, and no '---' before it");
		return -1;
	}
	k = key_index(line, (size_t)(colon - line));
	if (k < 0) {
		pc_set_err(err, errlen,
			   "unknown key '%.*s' (keys, in this order: Mutant Bug Class Breaks "
			   "Expect Arch Reintroduces Source Trigger)",
			   (int)(colon - line), line);
		return -1;
	}
	if (k != *next) {
		pc_set_err(err, errlen, "%s key '%s' (expected '%s' here)",
			   k < *next ? "repeated or misplaced" : "out of order:", keys[k].key,
			   *next < N_KEYS ? keys[*next].key : "---");
		return -1;
	}
	for (v = colon + 1; *v == ' ' || *v == '\t'; v++)
		;
	for (size_t n = strlen(v); n && isspace((unsigned char)v[n - 1]); n--)
		v[n - 1] = '\0';
	if (!*v) {
		pc_set_err(err, errlen, "key '%s' has no value", keys[k].key);
		return -1;
	}
	(*next)++;
	return keys[k].fn(m, path, v, err, errlen);
}

int pc_mutant_parse(const char *path, const char *buf, size_t len, struct pc_mutant *m, char *err,
		    size_t errlen)
{
	const char *p = buf, *end = buf + len;
	char line[1024], why[512] = "";
	int next = 0, lineno = 0;
	bool ended = false;

	memset(m, 0, sizeof(*m));
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = (size_t)((nl ? nl : end) - p);

		lineno++;
		if (n >= sizeof(line)) {
			pc_set_err(err, errlen, "%s:%d: line longer than %zu bytes", path, lineno,
				   sizeof(line) - 1);
			return -1;
		}
		memcpy(line, p, n);
		line[n] = '\0';
		p = nl ? nl + 1 : end;
		ended = strcmp(line, "---") == 0;
		if (ended)
			break;
		if (header_line(m, path, line, &next, why, sizeof(why))) {
			pc_set_err(err, errlen, "%s:%d: %s", path, lineno, why);
			return -1;
		}
	}
	if (!ended) {
		pc_set_err(err, errlen, "%s: no '---' line ends the header", path);
		return -1;
	}
	if (next < N_KEYS) {
		pc_set_err(err, errlen, "%s:%d: missing key '%s' before '---'", path, lineno,
			   keys[next].key);
		return -1;
	}
	if (!memmem(p, (size_t)(end - p), "\n+++ ", 5) && strncmp(p, "+++ ", 4) != 0) {
		pc_set_err(err, errlen, "%s: no unified diff after the header", path);
		return -1;
	}
	return 0;
}

int pc_mutant_load(const char *path, struct pc_mutant *m, char *err, size_t errlen)
{
	char why[PC_GATE_ERR_MAX];
	size_t len;
	char *buf = pc_gate_read_file(path, PATCH_MAX_BYTES, &len, why, sizeof(why));
	int ret;

	if (!buf) {
		pc_set_err(err, errlen, "%s: %s", path, why);
		return -1;
	}
	ret = pc_mutant_parse(path, buf, len, m, err, errlen);
	free(buf);
	return ret;
}
