// SPDX-License-Identifier: GPL-2.0
/*
 * jansson refuses invalid UTF-8, TAP parsers and XML readers may choke on
 * it, and a newline in a summary could fake the summary line CI parses:
 * bad bytes are replaced rather than the field lost, and control
 * characters become spaces.
 */
#include <string.h>
#include <ptecheck/types.h>
#include "clean.h"

/* Length of the valid UTF-8 sequence at s (n bytes left), 0 if none; *cp gets its value. */
static size_t utf8_seq(const unsigned char *s, size_t n, __u32 *cp)
{
	size_t len, k;

	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if ((s[0] & 0xe0) == 0xc0) {
		len = 2;
		*cp = s[0] & 0x1f;
	} else if ((s[0] & 0xf0) == 0xe0) {
		len = 3;
		*cp = s[0] & 0x0f;
	} else if ((s[0] & 0xf8) == 0xf0) {
		len = 4;
		*cp = s[0] & 0x07;
	} else {
		return 0;
	}
	if (len > n)
		return 0;
	for (k = 1; k < len; k++) {
		if ((s[k] & 0xc0) != 0x80)
			return 0;
		*cp = (*cp << 6) | (s[k] & 0x3f);
	}
	/* No overlong forms, surrogates or values past U+10FFFF. */
	if ((len == 2 && *cp < 0x80) || (len == 3 && *cp < 0x800) ||
	    (len == 4 && (*cp < 0x10000 || *cp > 0x10ffff)) || (*cp >= 0xd800 && *cp <= 0xdfff))
		return 0;
	return len;
}

/* What the ASCII byte c becomes in mode; NULL: itself. */
static const char *escape(unsigned char c, unsigned int mode)
{
	if (mode == PC_CLEAN_UTF8)
		return NULL;
	if (c < 0x20 || c == 0x7f)
		return " ";
	switch (mode) {
	case PC_CLEAN_TAP:
		return c == '#' ? "\\#" : NULL;
	case PC_CLEAN_DQUOTE:
		return c == '"' ? "\\\"" : c == '\\' ? "\\\\" : NULL;
	case PC_CLEAN_XML:
		switch (c) {
		case '&':
			return "&amp;";
		case '<':
			return "&lt;";
		case '>':
			return "&gt;";
		case '"':
			return "&quot;";
		case '\'':
			return "&#39;";
		}
		break;
	}
	return NULL;
}

const char *pc_clean(char *dst, size_t sz, const char *src, size_t max, unsigned int how)
{
	const unsigned char *s = (const unsigned char *)src;
	size_t n = src ? strnlen(src, max) : 0, i = 0, j = 0;

	if (!sz)
		return dst;
	while (i < n) {
		const char *out = src + i, *rep = NULL;
		size_t used, len;
		__u32 cp;

		used = len = utf8_seq(s + i, n - i, &cp);
		if (!len) {
			/* Byte by byte: the next one may start a valid sequence. */
			rep = "?";
			used = 1;
		} else if (len == 1) {
			rep = escape(s[i], how & PC_CLEAN_MODE);
		} else if ((how & PC_CLEAN_NONCHAR) && (cp == 0xfffe || cp == 0xffff)) {
			rep = "?";
		}
		if (rep) {
			out = rep;
			len = strlen(rep);
		}
		if (j + len >= sz)
			break;
		memcpy(dst + j, out, len);
		j += len;
		i += used;
	}
	dst[j] = '\0';
	return dst;
}
