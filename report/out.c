// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdarg.h>
#include "out.h"

void pc_outf(struct pc_out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (o->err)
		return;
	va_start(ap, fmt);
	n = vfprintf(o->f, fmt, ap);
	va_end(ap);
	if (n < 0 || ferror(o->f))
		o->err = errno ? errno : EIO;
}

int pc_out_finish(struct pc_out *o)
{
	if (fflush(o->f) != 0 && !o->err)
		o->err = errno ? errno : EIO;
	if (ferror(o->f) && !o->err)
		o->err = EIO;
	return o->err ? -o->err : 0;
}
