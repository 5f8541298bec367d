// SPDX-License-Identifier: BSD-3-Clause
#include <ctype.h>
#include <stdbool.h>
#include <string.h>
#include "read/file_kind.h"
#include "schema/raw_format.h"

static const struct {
	size_t at;
	const char *magic;
	size_t len;
	const char *hint;
} kinds[] = {
	{ 0, RAW_MAGIC, RAW_MAGIC_LEN,
	  "a raw capture (record --raw), not an ETDump: use `etdump-bpf convert` on it" },
	{ 0, "\x7f" "ELF", 4,
	  "an ELF binary, not an ETDump: `etdump-bpf list` shows its probes, `etdump-bpf record` traces it" },
	/* a program's FlatBuffer identifier: "ET" and two digits */
	{ 4, "ET", 2,
	  "an ExecuTorch program (.pte), not an ETDump: record the runtime that runs it (`etdump-bpf record`)" },
};

static bool is_program(const unsigned char *b, size_t len)
{
	return len >= 8 && isdigit(b[6]) && isdigit(b[7]);
}

const char *file_kind_hint(const void *buf, size_t len)
{
	const unsigned char *b = buf;
	size_t i;

	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (len >= kinds[i].at + kinds[i].len &&
		    !memcmp(b + kinds[i].at, kinds[i].magic, kinds[i].len) &&
		    (kinds[i].at != 4 || is_program(b, len)))
			return kinds[i].hint;
	for (i = 0; i < len && (b[i] == ' ' || b[i] == '\n' || b[i] == '\t' ||
				b[i] == '\r'); i++)
		;
	if (i < len && (b[i] == '{' || b[i] == '['))
		return "a JSON file (a timeline from `etdump-bpf convert`?), not an ETDump: `report` reads ETDumps";
	return NULL;
}
