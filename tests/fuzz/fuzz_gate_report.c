// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for `ptecheck gate`'s input side: the report loader and
 * the policy loader, and, for inputs that load, the rules and all five
 * writers (whose escaping must hold for any string a report can carry).
 *
 * Input: one report (compared with itself), or BASELINE '\0' CANDIDATE (a
 * NUL never appears in JSON text, so it separates the two).  The same bytes
 * are also given to the policy loader.  See docs/gate.md for how to run it.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gate.h"

static FILE *devnull;

static void gate_both(struct pc_report *base, struct pc_report *cand)
{
	const char *bf = "baseline.json", *cf = "candidate.json";
	struct pc_gate_input in = {0};
	struct pc_gate_result *g = NULL;
	char err[PC_GATE_ERR_MAX];
	int fmt;

	pc_gate_policy_default(&in.policy);
	/* One run per side: let the performance rule compute, not just refuse. */
	in.policy.perf_min_runs = 1;
	in.n_base = in.n_cand = 1;
	in.base = &base;
	in.cand = &cand;
	in.base_files = &bf;
	in.cand_files = &cf;
	if (pc_gate_evaluate(&in, &g, err, sizeof(err)))
		return;
	for (fmt = PC_GATE_FMT_TEXT; fmt <= PC_GATE_FMT_HTML; fmt++)
		pc_gate_write(g, fmt, devnull);
	pc_gate_result_free(g);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data, *nul = memchr(data, 0, size);
	struct pc_report *base = NULL, *cand = NULL;
	struct pc_gate_policy pol;
	char err[PC_GATE_ERR_MAX];

	if (!devnull)
		devnull = fopen("/dev/null", "w");
	if (!devnull)
		abort();

	pc_gate_policy_default(&pol);
	pc_gate_policy_parse(&pol, buf, size, err, sizeof(err));

	if (!nul) {
		if (pc_gate_report_parse(buf, size, true, &cand, err, sizeof(err)) == 0)
			gate_both(cand, cand);
	} else {
		size_t n = (size_t)(nul - buf);

		if (pc_gate_report_parse(buf, n, true, &base, err, sizeof(err)) == 0 &&
		    pc_gate_report_parse(nul + 1, size - n - 1, true, &cand, err, sizeof(err)) == 0)
			gate_both(base, cand);
	}
	pc_report_free(base);
	pc_report_free(cand);
	return 0;
}
