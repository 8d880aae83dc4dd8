/* SPDX-License-Identifier: GPL-2.0 */
/* For unit tests of the report writers: a report rendered into a string. */
#ifndef PTECHECK_TEST_REPORT_RENDER_H
#define PTECHECK_TEST_REPORT_RENDER_H

#include <stdio.h>
#include <stdlib.h>
#include "report.h"

/* r in fmt as a malloc'ed string (*ret: the writer's result); NULL if
   the stream failed. */
static inline char *render(const struct pc_report *r, enum pc_format fmt, int *ret)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	*ret = pc_report_write(r, fmt, f);
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

#endif
