/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel-log check's rule list (docs/kernel-log.md): "fail NAME REGEX"
 * and "ignore NAME REGEX" lines, first match wins.  Part of the kernel-log
 * matcher, whose interface is kmsg.h (which includes this).
 */
#ifndef PTECHECK_KMSG_RULES_H
#define PTECHECK_KMSG_RULES_H

#include <stddef.h>

/* Verdicts of pc_kmsg_classify(). */
#define PC_KMSG_NONE   0
#define PC_KMSG_FAIL   1
#define PC_KMSG_IGNORE 2

#define PC_KMSG_NAME_MAX 32 /* rule names: [a-z0-9-], 1 to 31 characters */
/* The default rules, data/kernel-log.patterns compiled in (generated source). */
extern const char pc_kmsg_default_rules[];

struct pc_kmsg_rules;

/* An empty rule list.  0 or -ENOMEM. */
int pc_kmsg_rules_new(struct pc_kmsg_rules **out);
/*
 * Appends the rules of text (the rule file format), after those already
 * there.  origin names the text in messages ("defaults", a path).  0, or
 * -EINVAL with "origin:line: reason" in err (unknown verb, bad name,
 * missing regex, regcomp's message) and no rule of text added; -ENOMEM.
 */
int pc_kmsg_rules_add_text(struct pc_kmsg_rules *r, const char *text, const char *origin, char *err,
			   size_t errlen);
/* The same from a file.  0 or -errno (open/read failure, -EINVAL as above). */
int pc_kmsg_rules_add_file(struct pc_kmsg_rules *r, const char *path, char *err, size_t errlen);
/* Appends pc_kmsg_default_rules (origin "defaults"). */
int pc_kmsg_rules_load_default(struct pc_kmsg_rules *r, char *err, size_t errlen);
size_t pc_kmsg_rules_count(const struct pc_kmsg_rules *r);
void pc_kmsg_rules_free(struct pc_kmsg_rules *r);

/*
 * Verdict of one logical line (unescaped, no newline): PC_KMSG_NONE,
 * PC_KMSG_FAIL or PC_KMSG_IGNORE from the first matching rule, whose name
 * goes to *rule_name (NULL for PC_KMSG_NONE; rule_name may be NULL).
 */
int pc_kmsg_classify(const struct pc_kmsg_rules *r, const char *line, const char **rule_name);

#endif
