// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "attempt.h"
#include "report.h"

void pc_slot_init(struct pc_attempt *a, int i, const struct pc_scenario_ctx *ctx, __u32 check,
		  const char *tier)
{
	pc_oracle_msg_init(&a->msg[i], ctx->scenario, check, tier);
	a->judged[i] = false;
	if (i >= a->n)
		a->n = i + 1;
}

int pc_slot_add(struct pc_attempt *a, const struct pc_scenario_ctx *ctx, __u32 check,
		const char *tier)
{
	int i = a->n;

	pc_slot_init(a, i, ctx, check, tier);
	return i;
}

bool pc_slot_used(const struct pc_attempt *a, int i)
{
	return i < a->n && a->msg[i].tier[0];
}

void pc_slot_skip(struct pc_attempt *a, int i, const char *fmt, ...)
{
	va_list ap;

	if (i < 0)
		return;
	va_start(ap, fmt);
	vsnprintf(a->msg[i].summary, sizeof(a->msg[i].summary), fmt, ap);
	va_end(ap);
	a->msg[i].status = PC_STATUS_SKIP;
	a->judged[i] = true;
}

void pc_slot_judge(struct pc_attempt *a, int i)
{
	pc_oracle_judge(&a->msg[i]);
	a->judged[i] = true;
}

void pc_skip_all(struct pc_attempt *a, const char *why)
{
	for (int i = 0; i < a->n; i++)
		if (!a->judged[i])
			pc_slot_skip(a, i, "%s", why);
}

int pc_skip_rest(struct pc_attempt *a, const char *what, int err)
{
	for (int i = 0; i < a->n; i++)
		if (!a->judged[i])
			pc_slot_skip(a, i, "could not run: %s: %s", what, strerror(err));
	return -err;
}

/* Settled: nothing asks for a retry and no slot failed. */
static bool attempt_settled(const struct pc_attempt *a)
{
	if (a->retry)
		return false;
	for (int i = 0; i < a->n; i++)
		if (pc_slot_used(a, i) && a->msg[i].status == PC_STATUS_FAIL)
			return false;
	return true;
}

int pc_attempts_run(struct pc_scenario_ctx *ctx, pc_measure_fn measure, const void *data)
{
	struct pc_attempt *at = calloc(PC_ATTEMPTS, sizeof(*at));
	struct pc_oracle_msg out;
	int na = 0, ret = 0;

	if (!at)
		return -ENOMEM;
	while (na < PC_ATTEMPTS) {
		ret = measure(ctx, data, &at[na++]);
		if (ret || attempt_settled(&at[na - 1]))
			break;
	}
	for (int i = 0; i < at[0].n; i++) {
		const struct pc_oracle_msg *msgs[PC_ATTEMPTS];
		bool disturbed[PC_ATTEMPTS];

		if (!pc_slot_used(&at[0], i))
			continue;
		for (int k = 0; k < na; k++) {
			msgs[k] = &at[k].msg[i];
			disturbed[k] = at[k].disturbed;
		}
		pc_oracle_combine(msgs, disturbed, na, PC_ATTEMPTS, &out);
		pc_oracle_report(ctx, &out);
	}
	free(at);
	return ret;
}
