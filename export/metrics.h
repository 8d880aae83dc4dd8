/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ptecheck export's metrics: a report of the live session (its in-kernel
 * results, histograms and statistics) and the kernel log's splats in the
 * Prometheus text exposition format, version 0.0.4 (docs/fleet.md names
 * the families).
 */
#ifndef PTECHECK_EXPORT_METRICS_H
#define PTECHECK_EXPORT_METRICS_H

#include <stdio.h>
#include "kmsg.h"
#include "report.h"

#define PC_METRICS_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

struct pc_metrics_src {
	const struct pc_report *r;	 /* results, histograms, stats */
	const struct pc_kmsg_scan *klog; /* the kernel log's splats; NULL: none read */
	double start_time;		 /* Unix seconds the exporter started */
};

/* Writes the exposition of m to out: 0, or -errno. */
int pc_metrics_write(const struct pc_metrics_src *m, FILE *out);
/* Writes s as a label value (backslash, quote and newline escaped). */
void pc_metrics_label_value(FILE *out, const char *s);

#endif
