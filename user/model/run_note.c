// SPDX-License-Identifier: BSD-3-Clause
#include <stdio.h>
#include <string.h>
#include "model/run_note.h"

#define EVERY_NOTE RUN_NOTE_PREFIX "every:1;every="
#define THREAD_NOTE RUN_NOTE_PREFIX "thread:1"
#define THREAD_KEY ";thread="
/* the most digits a __u32 has */
#define EVERY_DIGITS 10

void run_note_every_text(uint32_t every, char *buf, size_t len)
{
	snprintf(buf, len, EVERY_NOTE "%u", every);
}

/* The metadata holds bytes, not a C string: every look is bounded. */
static uint32_t every_of(const struct etd_event *ev)
{
	size_t plen = strlen(EVERY_NOTE), i;
	uint64_t n = 0;

	if (!ev->has_metadata || !ev->metadata || ev->metadata_len <= plen ||
	    memcmp(ev->metadata, EVERY_NOTE, plen))
		return 0;
	for (i = plen; i < ev->metadata_len && i - plen < EVERY_DIGITS; i++) {
		if (ev->metadata[i] < '0' || ev->metadata[i] > '9')
			break;
		n = n * 10 + (ev->metadata[i] - '0');
	}
	/* digits to the end or to the next field, and a count that fits */
	if (i == plen || n > UINT32_MAX ||
	    (i < ev->metadata_len && ev->metadata[i] != ';'))
		return 0;
	return (uint32_t)n;
}

uint32_t run_note_every(const struct etd_dump *dump)
{
	const struct etd_run *r;
	uint32_t n;
	size_t i, j;

	for (i = 0; i < dump->nruns; i++) {
		r = &dump->runs[i];
		for (j = 0; j < r->nevents; j++) {
			n = r->events[j].kind == ETD_PROFILE ?
				    every_of(&r->events[j]) : 0;
			if (n)
				return n;
		}
	}
	return 0;
}

size_t run_note_thread_text(const char *note, const char *name, char *buf,
			    size_t len)
{
	int n = snprintf(buf, len, "%s" THREAD_KEY "%s",
			 note ? note : THREAD_NOTE, name);
	size_t i, at;

	if (n < 0 || (size_t)n >= len)
		return 0;
	at = strlen(note ? note : THREAD_NOTE) + strlen(THREAD_KEY);
	for (i = at; i < (size_t)n; i++)
		if (buf[i] == ';')
			buf[i] = ',';
	return n;
}

size_t run_note_thread(const struct etd_event *ev, char *buf, size_t len)
{
	size_t plen = strlen(RUN_NOTE_PREFIX), klen = strlen(THREAD_KEY), i, n;
	const uint8_t *m = ev->metadata;

	if (!len || !ev->has_metadata || !m || ev->metadata_len < plen ||
	    memcmp(m, RUN_NOTE_PREFIX, plen))
		return 0;
	for (i = plen; i + klen <= ev->metadata_len; i++) {
		if (memcmp(m + i, THREAD_KEY, klen))
			continue;
		for (n = 0; i + klen + n < ev->metadata_len &&
			    m[i + klen + n] != ';' && n < len - 1; n++)
			buf[n] = m[i + klen + n];
		buf[n] = '\0';
		return n;
	}
	return 0;
}
