/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * etdump_writer.h - serialize an etd_dump as an ETDump file that
 * ExecuTorch's Inspector loads (schema/etdump.fbs).
 *
 * The file is what ETDumpGen writes: size prefix (file size - 4), root
 * offset, "ED00", every scalar aligned to its size from byte 0, length a
 * multiple of 8. Scalars equal to their schema default are left out
 * (version 0, chain_index 0, instruction_id -1, delegate_debug_id_int -1,
 * bundled_input_index -1, times 0, ...); readers get the default back.
 *
 * What it does with a dump the Inspector would reject:
 *   - a run without events is skipped: the Inspector fails on a present
 *     but empty events vector, and an absent one carries nothing;
 *   - a dump with no run left still gives a valid file whose run_data is
 *     an empty vector (the Inspector loads it and reports no data);
 *   - RunData.name and Allocator.name are always written ("" for NULL),
 *     as the Inspector requires them;
 *   - Tensor.sizes and strides are always written (empty for NULL);
 *   - delegate_debug_metadata is written when has_metadata, even empty,
 *     and carries the perf counters of other profile events
 *     (etdump_counters.h);
 *   - an allocation event, or a debug event without a value, fails with
 *     -EINVAL: the Inspector cannot load a file holding either; unless
 *     dump->allocations says to leave allocation events out or to write
 *     them anyway (a run left with none is skipped).
 * Only the Value member named by its type is written.
 */
#ifndef ETDUMP_WRITER_H
#define ETDUMP_WRITER_H

#include <stddef.h>
#include "model/etdump_model.h"
#include "write/fb_builder.h"

/* The file bytes in a malloc'd *buf. 0, -EINVAL, -ENOMEM or -E2BIG. */
int etdump_write(const struct etd_dump *dump, void **buf, size_t *len);

/*
 * Write to a temporary file next to path, sync it, then move it to path
 * (file_replace() in file_io.h: a symbolic link is never followed, a file
 * that appeared since output_check() is replaced only with force; then the
 * data is kept in the temporary file *kept names), so path holds either its
 * old content or the whole new file. Returns a negative errno.
 */
int etdump_write_file(const struct etd_dump *dump, const char *path,
		      bool force, char **kept);

/*
 * The pieces, for writers that add runs one at a time
 * (etdump_log_writer.h): one run's RunData (dump gives the counter names),
 * then the root over the runs' refs in file order, and fb_finish.
 */
int etdump_write_run(struct fb_builder *b, const struct etd_dump *dump,
		     const struct etd_run *run, fb_ref *out);
/*
 * A run written an event at a time (etdump_write_run's two halves): each
 * event's table (*out 0 for one the dump leaves out), then the run's table
 * over their refs; refs needs room for the run's allocators too, and is
 * clobbered.
 */
int etdump_write_event(struct fb_builder *b, const struct etd_dump *dump,
		       const struct etd_event *ev, fb_ref *out);
/* The same for a profile event without counters, from its parts. */
int etdump_write_profile(struct fb_builder *b, const struct etd_profile *p,
			 fb_ref *out);
int etdump_write_run_table(struct fb_builder *b, const struct etd_run *run,
			   fb_ref *refs, size_t n, fb_ref *out);
int etdump_write_root(struct fb_builder *b, uint32_t version,
		      const fb_ref *runs, size_t n);
/* How many of run's events the file holds (dump->allocations says). */
size_t etdump_events_written(const struct etd_dump *dump,
			     const struct etd_run *run);

#endif /* ETDUMP_WRITER_H */
