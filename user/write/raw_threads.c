// SPDX-License-Identifier: BSD-3-Clause
#include <string.h>
#include "schema/etdump_record.h"
#include "write/raw_threads.h"

int raw_name_thread(struct raw_writer *w, struct thread_names *tn,
		    const void *rec, size_t len)
{
	const struct thread_name *t;
	struct etdump_rec_hdr h;
	int ret;

	if (len < sizeof(h))
		return 0;
	memcpy(&h, rec, sizeof(h));
	/* the recorder's own, of no thread (ETDUMP_REC_CLOCK) */
	if (!h.tid)
		return 0;
	if (h.type == ETDUMP_REC_THREAD_NAME &&
	    len >= sizeof(struct etdump_rec_thread_name))
		ret = thread_names_set(tn, h.pid, h.tid,
				       ((const struct etdump_rec_thread_name *)
						rec)->name, &t);
	else
		ret = thread_names_see(tn, h.pid, h.tid, &t);
	if (ret <= 0)
		return ret;
	return raw_writer_thread(w, t->tid, t->name);
}

int raw_rename_threads(struct raw_writer *w, struct thread_names *tn)
{
	size_t i;
	int err = 0;

	for (i = 0; w && i < tn->n && !err; i++)
		if (thread_names_reread(tn, i))
			err = raw_writer_thread(w, tn->v[i].tid, tn->v[i].name);
	return err;
}
