// SPDX-License-Identifier: BSD-3-Clause
/*
 * fuzz_usdt_notes - any bytes as the executable record and list read the
 * probe notes of: an error or a probe list of terminated strings, never a
 * crash. The ELF container is libelf's; the .note.stapsdt parsing is ours.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz_copy.h"
#include "target/usdt_notes.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct usdt_probe_list list;
	char err[256];
	size_t i, n = 0;
	void *image;

	/* libelf may convert the image in place */
	image = fuzz_copy(data, size, false);
	if (!image)
		return 0;
	if (!usdt_notes_read_mem(image, size, &list, err, sizeof(err))) {
		for (i = 0; i < list.n; i++) {
			n += !strcmp(list.probes[i].provider, "etdump");
			/* every string readable to its end */
			if (strlen(list.probes[i].name) + 1 == 0 ||
			    strlen(list.probes[i].args) + 1 == 0)
				abort();
		}
		if (usdt_notes_count(&list, "etdump") != n)
			abort();
		usdt_notes_free(&list);
	} else if (list.n || list.probes) {
		abort(); /* an error leaves nothing to free */
	}
	free(image);
	return 0;
}
