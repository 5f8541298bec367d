// SPDX-License-Identifier: BSD-3-Clause
#include <string.h>
#include "model/run_note.h"
#include "report/report_note.h"
#include "symbol/symbol_calibrate.h"

/* Our notes start so; a runtime's own metadata (counters, delegates) not. */
#define NOTE_PREFIX RUN_NOTE_PREFIX

/* The metadata holds bytes, not a C string: every look is bounded. */
static bool note_says(const struct etd_event *ev, const char *what)
{
	size_t plen = strlen(NOTE_PREFIX), wlen = strlen(what), i;
	const uint8_t *m = ev->metadata;

	if (!m || ev->metadata_len < plen + wlen ||
	    memcmp(m, NOTE_PREFIX, plen))
		return false;
	for (i = plen; i + wlen <= ev->metadata_len; i++)
		if (!memcmp(m + i, what, wlen) &&
		    (i + wlen == ev->metadata_len || m[i + wlen] == ';'))
			return true;
	return false;
}

bool report_note_call_order(const struct etd_dump *dump)
{
	const struct etd_run *r;
	size_t i, j;

	for (i = 0; i < dump->nruns; i++) {
		r = &dump->runs[i];
		for (j = 0; j < r->nevents; j++)
			if (r->events[j].kind == ETD_PROFILE &&
			    note_says(&r->events[j], SYMBOL_NOTE_CALL_ORDER))
				return true;
	}
	return false;
}

/* The value of a ";KEY" segment of an event's note, bounded: its length. */
static size_t note_value(const struct etd_event *ev, const char *key,
			 const uint8_t **value)
{
	size_t plen = strlen(NOTE_PREFIX), klen = strlen(key), i, n;
	const uint8_t *m = ev->metadata;

	if (!m || ev->metadata_len < plen || memcmp(m, NOTE_PREFIX, plen))
		return 0;
	for (i = plen; i + klen <= ev->metadata_len; i++) {
		if (memcmp(m + i, key, klen))
			continue;
		for (n = 0; i + klen + n < ev->metadata_len &&
			    m[i + klen + n] != ';'; n++)
			;
		*value = m + i + klen;
		return n;
	}
	return 0;
}

bool report_note_duty(const struct etd_dump *dump, char *buf, size_t len)
{
	const struct etd_run *r;
	const uint8_t *v;
	size_t i, j, n;

	for (i = 0; i < dump->nruns; i++) {
		r = &dump->runs[i];
		for (j = 0; j < r->nevents; j++) {
			if (r->events[j].kind != ETD_PROFILE)
				continue;
			n = note_value(&r->events[j], REPORT_NOTE_DUTY, &v);
			if (!n || n >= len)
				continue;
			memcpy(buf, v, n);
			buf[n] = '\0';
			return true;
		}
	}
	return false;
}
