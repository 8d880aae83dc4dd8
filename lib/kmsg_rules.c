// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel-log check's rule list (kmsg.h, docs/kernel-log.md): the rule
 * file format ("fail NAME REGEX" / "ignore NAME REGEX", first match wins),
 * its parser with errors naming origin:line, and the matcher.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "kmsg_rules.h"
#include "kmsg_text.h"

struct pc_kmsg_rule {
	int verdict;
	char name[PC_KMSG_NAME_MAX];
	regex_t re;
};

struct pc_kmsg_rules {
	struct pc_kmsg_rule *v;
	size_t n, cap;
};

int pc_kmsg_rules_new(struct pc_kmsg_rules **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -ENOMEM;
}

static void rules_truncate(struct pc_kmsg_rules *r, size_t n)
{
	while (r->n > n)
		regfree(&r->v[--r->n].re);
}

void pc_kmsg_rules_free(struct pc_kmsg_rules *r)
{
	if (!r)
		return;
	rules_truncate(r, 0);
	free(r->v);
	free(r);
}

size_t pc_kmsg_rules_count(const struct pc_kmsg_rules *r)
{
	return r->n;
}

static int valid_name(const char *name, size_t len)
{
	size_t i;

	if (!len || len >= PC_KMSG_NAME_MAX)
		return 0;
	for (i = 0; i < len; i++)
		if (!((name[i] >= 'a' && name[i] <= 'z') || (name[i] >= '0' && name[i] <= '9') ||
		      name[i] == '-'))
			return 0;
	return 1;
}

/* One line of a rule file (writable, no newline).  0 or -EINVAL/-ENOMEM. */
static int parse_rule_line(struct pc_kmsg_rules *r, char *line, const char *origin,
			   unsigned int lineno, char *err, size_t errlen)
{
	char *p = line, *end = line + strlen(line), *verb, *name;
	struct pc_kmsg_rule *rule;
	size_t vlen, nlen;
	int verdict, rc;

	while (end > p && (kmsg_is_blank(end[-1]) || end[-1] == '\r'))
		*--end = '\0';
	while (kmsg_is_blank(*p))
		p++;
	if (!*p || *p == '#')
		return 0;

	verb = p;
	while (*p && !kmsg_is_blank(*p))
		p++;
	vlen = p - verb;
	if (vlen == 4 && !strncmp(verb, "fail", 4)) {
		verdict = PC_KMSG_FAIL;
	} else if (vlen == 6 && !strncmp(verb, "ignore", 6)) {
		verdict = PC_KMSG_IGNORE;
	} else {
		pc_set_err(err, errlen, "%s:%u: unknown verb '%.*s' (expected fail or ignore)",
			   origin, lineno, (int)(vlen > 40 ? 40 : vlen), verb);
		return -EINVAL;
	}
	while (kmsg_is_blank(*p))
		p++;
	if (!*p) {
		pc_set_err(err, errlen, "%s:%u: missing rule name and regular expression", origin,
			   lineno);
		return -EINVAL;
	}
	name = p;
	while (*p && !kmsg_is_blank(*p))
		p++;
	nlen = p - name;
	if (!valid_name(name, nlen)) {
		pc_set_err(err, errlen,
			   "%s:%u: bad rule name '%.*s' (expected 1 to %d of a-z, 0-9, -)", origin,
			   lineno, (int)(nlen > 40 ? 40 : nlen), name, PC_KMSG_NAME_MAX - 1);
		return -EINVAL;
	}
	while (kmsg_is_blank(*p))
		p++;
	if (!*p) {
		pc_set_err(err, errlen, "%s:%u: rule %.*s: missing regular expression", origin,
			   lineno, (int)nlen, name);
		return -EINVAL;
	}

	if (r->n == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 32;
		struct pc_kmsg_rule *v = realloc(r->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		r->v = v;
		r->cap = cap;
	}
	rule = &r->v[r->n];
	rc = regcomp(&rule->re, p, REG_EXTENDED | REG_NOSUB);
	if (rc) {
		char msg[256];

		regerror(rc, &rule->re, msg, sizeof(msg));
		pc_set_err(err, errlen, "%s:%u: rule %.*s: bad regular expression '%s': %s", origin,
			   lineno, (int)nlen, name, p, msg);
		return -EINVAL;
	}
	rule->verdict = verdict;
	memcpy(rule->name, name, nlen);
	rule->name[nlen] = '\0';
	r->n++;
	return 0;
}

int pc_kmsg_rules_add_text(struct pc_kmsg_rules *r, const char *text, const char *origin, char *err,
			   size_t errlen)
{
	size_t n0 = r->n;
	unsigned int lineno = 0;
	char *copy, *p, *nl;
	int ret = 0;

	pc_set_err(err, errlen, "%s", "");
	if (!origin)
		origin = "rules";
	copy = strdup(text);
	if (!copy) {
		pc_set_err(err, errlen, "%s: out of memory", origin);
		return -ENOMEM;
	}
	for (p = copy; *p && !ret; p = nl ? nl + 1 : p + strlen(p)) {
		nl = strchr(p, '\n');
		if (nl)
			*nl = '\0';
		ret = parse_rule_line(r, p, origin, ++lineno, err, errlen);
		if (ret == -ENOMEM)
			pc_set_err(err, errlen, "%s:%u: out of memory", origin, lineno);
	}
	free(copy);
	if (ret)
		rules_truncate(r, n0);
	return ret;
}

int pc_kmsg_rules_add_file(struct pc_kmsg_rules *r, const char *path, char *err, size_t errlen)
{
	struct kmsg_sbuf b = {0};
	char chunk[4096];
	int fd, ret = 0;
	ssize_t n;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		pc_set_err(err, errlen, "%s: %s", path, strerror(-ret));
		return ret;
	}
	for (;;) {
		n = read(fd, chunk, sizeof(chunk));
		if (n > 0) {
			if (kmsg_sb_add(&b, chunk, n)) {
				ret = -ENOMEM;
				pc_set_err(err, errlen, "%s: out of memory", path);
				break;
			}
			continue;
		}
		if (n == 0)
			break;
		if (errno == EINTR)
			continue;
		ret = -errno;
		pc_set_err(err, errlen, "%s: %s", path, strerror(-ret));
		break;
	}
	close(fd);
	if (!ret && b.len && memchr(b.p, '\0', b.len)) {
		pc_set_err(err, errlen, "%s: contains a NUL byte: not a rule file", path);
		ret = -EINVAL;
	}
	if (!ret)
		ret = pc_kmsg_rules_add_text(r, b.p ? b.p : "", path, err, errlen);
	free(b.p);
	return ret;
}

int pc_kmsg_rules_load_default(struct pc_kmsg_rules *r, char *err, size_t errlen)
{
	return pc_kmsg_rules_add_text(r, pc_kmsg_default_rules, "defaults", err, errlen);
}

int pc_kmsg_classify(const struct pc_kmsg_rules *r, const char *line, const char **rule_name)
{
	size_t i;

	for (i = 0; i < r->n; i++) {
		if (!regexec(&r->v[i].re, line, 0, NULL, 0)) {
			if (rule_name)
				*rule_name = r->v[i].name;
			return r->v[i].verdict;
		}
	}
	if (rule_name)
		*rule_name = NULL;
	return PC_KMSG_NONE;
}
