/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Free text in a report (summaries, notes, evidence, kernel-log lines) and
 * in a report the gate reads is untrusted: made valid UTF-8 and escaped for
 * the format it goes into.  One implementation for the report writers and
 * the gate's.
 */
#ifndef PTECHECK_CLEAN_H
#define PTECHECK_CLEAN_H

#include <stddef.h>

/* What pc_clean() does besides replacing each byte of invalid UTF-8 by '?'. */
enum pc_clean {
	PC_CLEAN_UTF8 = 0, /* nothing more: JSON strings (jansson escapes the rest) */
	PC_CLEAN_LINE,	   /* control characters become spaces: one record, one line */
	PC_CLEAN_TAP,	   /* as LINE, and '#' escaped: it would start a TAP directive */
	PC_CLEAN_DQUOTE,   /* as LINE, and '"' and '\' escaped inside a "..." string */
	PC_CLEAN_XML,	   /* as LINE, and & < > " ' written as entities */
	PC_CLEAN_MODE = 0xff,
	/* Flag: U+FFFE and U+FFFF, which are not XML characters, become '?'
	   too (the gate, whose text also goes into XML and HTML). */
	PC_CLEAN_NONCHAR = 0x100,
};

/*
 * Cleans the first max bytes of src (up to its NUL; NULL is "") into dst
 * of sz bytes, how = a mode | flags.  What does not fit is cut, never in
 * the middle of a character or an escape.  Returns dst.
 */
const char *pc_clean(char *dst, size_t sz, const char *src, size_t max, unsigned int how);

#endif
