/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * stdout_output.h - `record -o -`: the ETDump goes to standard output, so
 * that `record -o - -- CMD | etdump-bpf report -` works. Standard output
 * is then set aside for the file alone: the recorder's stdout (which the
 * command it starts inherits) becomes its stderr, so the target's own
 * output never mixes into the ETDump; and it is never a terminal.
 */
#ifndef ETDUMP_STDOUT_OUTPUT_H
#define ETDUMP_STDOUT_OUTPUT_H

#include <stdbool.h>
#include "write/etdump_log_writer.h"

/* The name that means standard output. */
bool stdout_output_is(const char *path);

/*
 * Set standard output aside: its descriptor (close-on-exec), or -ENOTTY
 * when it is a terminal, or another negative errno.
 */
int stdout_output_begin(void);
/* The log's runs as one ETDump to fd, which is closed: 0 or -errno. */
int stdout_output_write_log(int fd, struct run_log *log,
			    const struct etdump_log_meta *m);
/* The same for the runs streamed into es. */
int stdout_output_write_stream(int fd, struct etdump_stream *es);
/* The same for a whole dump. */
int stdout_output_write_dump(int fd, const struct etd_dump *dump);

#endif /* ETDUMP_STDOUT_OUTPUT_H */
