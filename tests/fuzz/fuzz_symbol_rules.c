// SPDX-License-Identifier: BSD-3-Clause
/*
 * fuzz_symbol_rules - any bytes as a rules file (record --rules), then
 * every rule matched against function names like the ones symbol mode
 * sees: an error naming the line, or rules that match without a crash and
 * give event names that fit.
 *
 * Inputs with a line of more than MAX_WILDCARDS '*' or '{' (a rule, with
 * its event) are skipped: the matcher
 * backtracks, exponentially in the wildcards of a rule (a rule of a dozen
 * stars takes minutes on one long name), which is known and not what this
 * target looks for.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "symbol/symbol_rules.h"

#define MAX_WILDCARDS 4

static const char *const functions[] = {
	"executorch::runtime::Method::execute",
	"executorch::runtime::Program::load_method",
	"torch::executor::native::add_out",
	"torch::executor::native::convolution_out",
	"main", "", "a_b_c", "{op}",
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct symbol_rules rs = { 0 };
	char err[256], event[ETDUMP_NAME_MAX];
	size_t i, wildcards = 0;
	int idx;

	for (i = 0; i < size; i++) {
		wildcards = data[i] == '\n' ? 0 :
			    wildcards + (data[i] == '*' || data[i] == '{');
		if (wildcards > MAX_WILDCARDS)
			return 0;
	}
	if (symbol_rules_parse(&rs, (const char *)data, size, "fuzz", err,
			       sizeof(err))) {
		if (!memchr(err, '\0', sizeof(err)) || !err[0])
			abort();
		symbol_rules_free(&rs);
		return 0;
	}
	for (i = 0; i < sizeof(functions) / sizeof(functions[0]) + rs.n; i++) {
		const char *f = i < sizeof(functions) / sizeof(functions[0]) ?
			functions[i] : rs.rules[i - sizeof(functions) /
						    sizeof(functions[0])].pattern;

		idx = symbol_rules_match(&rs, f, event);
		if (idx >= (int)rs.n ||
		    (idx >= 0 && !memchr(event, '\0', sizeof(event))))
			abort();
	}
	symbol_rules_free(&rs);
	return 0;
}
