// SPDX-License-Identifier: BSD-3-Clause
/*
 * record_check.c - a ring record checked before the collector reads it
 * (record_check.h).
 */
#include <stddef.h>
#include "collect/record_check.h"
#include "collect/value_capture.h"

/* The smallest size each record type can have. */
static size_t record_min_size(uint8_t type)
{
	switch (type) {
	case ETDUMP_REC_BLOCK:
		return sizeof(struct etdump_rec_block);
	case ETDUMP_REC_PROFILE_BEGIN:
	case ETDUMP_REC_DELEGATE_BEGIN:
		return offsetof(struct etdump_rec_begin, counters);
	case ETDUMP_REC_PROFILE_END:
	case ETDUMP_REC_DELEGATE_END:
		return offsetof(struct etdump_rec_end, counters);
	case ETDUMP_REC_INSTRUCTION:
		return sizeof(struct etdump_rec_instruction);
	case ETDUMP_REC_DELEGATE_LOG:
		return sizeof(struct etdump_rec_delegate_log);
	case ETDUMP_REC_BATCH:
		return offsetof(struct etdump_rec_batch, data);
	case ETDUMP_REC_VALUE:
		return sizeof(struct etdump_rec_value);
	case ETDUMP_REC_VALUE_DATA:
		return offsetof(struct etdump_rec_value_data, data);
	case ETDUMP_REC_ALLOCATION:
		return sizeof(struct etdump_rec_allocation);
	case ETDUMP_REC_ALLOCATOR:
		return sizeof(struct etdump_rec_allocator);
	case ETDUMP_REC_KEPT_EVERY:
		return sizeof(struct etdump_rec_kept_every);
	case ETDUMP_REC_THREAD_NAME:
		return sizeof(struct etdump_rec_thread_name);
	case ETDUMP_REC_LOST_TAIL:
		return sizeof(struct etdump_rec_lost_tail);
	case ETDUMP_REC_CLOCK:
		return sizeof(struct etdump_rec_clock);
	default:
		return 0;
	}
}

/*
 * The counter samples the header announces lie inside the record: a raw
 * capture keeps records at the length the ring gave, which may stop there.
 */
static bool counters_fit(const struct etdump_rec_hdr *h, size_t at)
{
	return h->ncounters <= ETDUMP_MAX_COUNTERS &&
	       h->size >= at + h->ncounters *
				       sizeof(struct etdump_counter_sample);
}

bool record_delegate_ids_valid(uint8_t type, uint64_t token, int64_t id_int,
				      uint16_t name_len)
{
	if (type == ETDUMP_REC_DELEGATE_BEGIN)
		return token || (int32_t)id_int != -1;
	if (type == ETDUMP_REC_DELEGATE_LOG)
		return (name_len && name_len != ETDUMP_NAME_UNREAD) ||
		       (int32_t)id_int != -1;
	return true;
}

bool record_check(const struct etdump_rec_hdr *h, size_t len)
{
	size_t min = record_min_size(h->type);
	const struct etdump_rec_begin *b = (const void *)h;
	const struct etdump_rec_end *e = (const void *)h;
	const struct etdump_rec_delegate_log *d = (const void *)h;

	if (!min || h->size > len || h->size < min)
		return false;
	switch (h->type) {
	case ETDUMP_REC_DELEGATE_BEGIN:
		if (!record_delegate_ids_valid(h->type, b->token, b->id_int, 0))
			return false;
		/* fall through */
	case ETDUMP_REC_PROFILE_BEGIN:
		return counters_fit(h, offsetof(struct etdump_rec_begin,
						counters));
	case ETDUMP_REC_PROFILE_END:
	case ETDUMP_REC_DELEGATE_END:
		return e->meta_len <= ETDUMP_META_MAX &&
		       counters_fit(h, offsetof(struct etdump_rec_end, counters));
	case ETDUMP_REC_DELEGATE_LOG:
		return d->meta_len <= ETDUMP_META_MAX &&
		       record_delegate_ids_valid(h->type, 0, d->id_int, d->name_len);
	case ETDUMP_REC_BATCH:
		return ((const struct etdump_rec_batch *)h)->len <=
		       h->size - offsetof(struct etdump_rec_batch, data);
	case ETDUMP_REC_VALUE:
	case ETDUMP_REC_VALUE_DATA:
		return value_record_valid(h);
	}
	return true;
}
