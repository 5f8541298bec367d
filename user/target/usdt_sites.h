/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * usdt_sites.h - where in its file each USDT probe of a provider is: the
 * file offsets a uprobe is placed at (the site, and its semaphore, the
 * kernel's reference counter), as the kernel's uprobe_events takes them.
 * The note's addresses are virtual: each is moved into the file through
 * the PT_LOAD segment holding it, after .stapsdt.base's prelink shift.
 */
#ifndef ETDUMP_USDT_SITES_H
#define ETDUMP_USDT_SITES_H

#include <stddef.h>
#include <stdint.h>

struct usdt_site {
	const char *name;        /* the probe's, in the list read */
	const char *args;
	uint64_t offset;         /* of the site in the file */
	uint64_t sema_offset;    /* 0: no semaphore */
};

struct usdt_sites {
	struct usdt_site *v;
	size_t n;
	void *notes;             /* the probes read, which v points into */
};

/*
 * Every site of `provider` in the ELF file open at fd (name for the
 * messages); negative errno and "NAME: why" in err.
 */
int usdt_sites_read(int fd, const char *name, const char *provider,
		    struct usdt_sites *out, char *err, size_t errlen);
void usdt_sites_free(struct usdt_sites *s);

#endif /* ETDUMP_USDT_SITES_H */
