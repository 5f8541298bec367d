// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include "lib/load_retry.h"

int load_retry(load_try_fn try, load_undo_fn undo, void *ctx)
{
	int tries = 0, err;

	while ((err = try(ctx, ++tries == LOAD_TRIES)) == -EAGAIN &&
	       tries < LOAD_TRIES)
		if (undo)
			undo(ctx);
	return err;
}
