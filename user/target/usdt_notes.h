/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * usdt_notes.h - read the USDT probes (.note.stapsdt) an ELF file carries,
 * so record can refuse a binary without etdump probes and list can show them.
 */
#ifndef ETDUMP_USDT_NOTES_H
#define ETDUMP_USDT_NOTES_H

#include <stddef.h>
#include <stdint.h>

struct usdt_probe {
	char *provider;
	char *name;
	char *args;
	uint64_t pc;
	uint64_t base;       /* .stapsdt.base as linked: prelink moves it */
	uint64_t semaphore;  /* 0 = none */
};

struct usdt_probe_list {
	struct usdt_probe *probes;
	size_t n;
};

/* Fills *out with every probe of `path`; negative errno, message in err. */
int usdt_notes_read(const char *path, struct usdt_probe_list *out, char *err,
		    size_t errlen);
/*
 * The same from an ELF image in memory, which libelf may convert in place
 * (a private mapping, as it treats elf_memory()'s image).
 */
/* The same from an open file; name is for the messages. */
int usdt_notes_read_fd(int fd, const char *name, struct usdt_probe_list *out,
		       char *err, size_t errlen);
int usdt_notes_read_mem(void *buf, size_t len, struct usdt_probe_list *out,
			char *err, size_t errlen);
size_t usdt_notes_count(const struct usdt_probe_list *list,
			const char *provider);
void usdt_notes_free(struct usdt_probe_list *list);

#endif /* ETDUMP_USDT_NOTES_H */
