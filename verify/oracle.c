// SPDX-License-Identifier: GPL-2.0
/* Verdicts from the scenario child to the parent, through the report pipe. */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "scenario.h"

void pc_oracle_report(const struct pc_scenario_ctx *ctx, const struct pc_oracle_msg *msg)
{
	struct pc_oracle_msg m = *msg;
	const char *p = (const char *)&m;
	size_t left = sizeof(m);

	if (!ctx || ctx->report_fd < 0)
		return;
	/* The parent files a verdict under its scenario: never leave it unnamed. */
	if (!m.scenario[0] && ctx->scenario)
		strncpy(m.scenario, ctx->scenario, sizeof(m.scenario) - 1);
	m.scenario[sizeof(m.scenario) - 1] = 0;
	m.tier[sizeof(m.tier) - 1] = 0;
	m.summary[sizeof(m.summary) - 1] = 0;
	/* One message is below PIPE_BUF, so a pipe takes it whole; loop anyway. */
	while (left > 0) {
		ssize_t w = write(ctx->report_fd, p, left);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return; /* parent gone: nobody to tell */
		}
		p += w;
		left -= (size_t)w;
	}
}
