/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * value_capture.h - record --values: turn the `value` probe's records
 * (etdump_rec_value, preceded by its data in etdump_rec_value_data) into
 * the DebugEvents ETDumpGen writes, and the tensors' bytes into the debug
 * buffer the Inspector reads beside the ETDump (debug_buffer.h).
 *
 * As ETDumpGen: a tensor's bytes go to the buffer and Tensor.offset says
 * where (-1 for a tensor of no bytes); a list of tensors is one event
 * (the tracer sends one record per tensor); a program output's tensor or
 * list carries output = true, a scalar never does. A value whose bytes
 * were not all copied (the --values bound, a page the probe could not
 * read, the ring full) keeps its true sizes; what is missing reads as
 * zeros, and it is counted as cut and marked in the buffer's trailer
 * (debug_buffer.h), never passed off as whole.
 */
#ifndef ETDUMP_VALUE_CAPTURE_H
#define ETDUMP_VALUE_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "model/etdump_model.h"
#include "schema/etdump_record.h"

struct value_capture;

struct value_capture_stats {
	uint64_t values;     /* DebugEvents made */
	uint64_t tensors;    /* tensors among them (list members each) */
	uint64_t bytes;      /* tensor bytes copied */
	uint64_t cut;        /* tensors not copied whole */
	uint64_t cut_bytes;  /* bytes missing from them */
	uint64_t lost;       /* values unreadable, or lists missing a member */
};

struct value_capture *value_capture_new(void);
void value_capture_free(struct value_capture *vc);

/* A data chunk of the next value on its thread. */
int value_capture_data(struct value_capture *vc,
		       const struct etdump_rec_value_data *r);
/*
 * A value record: *ready is set when it completes a DebugEvent, in *ev
 * (the caller owns it then); a list waits for its last tensor.
 */
int value_capture_value(struct value_capture *vc,
			const struct etdump_rec_value *r, struct etd_event *ev,
			bool *ready);

/* The capture ended: mark the cut tensors in the buffer's trailer. */
int value_capture_seal(struct value_capture *vc);
/* The debug buffer so far, and the counts. */
const uint8_t *value_capture_buffer(const struct value_capture *vc,
				    size_t *len);
void value_capture_get_stats(const struct value_capture *vc,
			     struct value_capture_stats *st);

/*
 * The summary's lines: values, tensors and bytes written to `path`, and
 * the values cut (with the bound that cut them, 0 if unknown) or lost.
 */
void value_capture_summary(const struct value_capture *vc, const char *path,
			   uint64_t max);

/* Record validity: sizes and bounds a reader relies on. */
bool value_record_valid(const struct etdump_rec_hdr *h);

#endif /* ETDUMP_VALUE_CAPTURE_H */
