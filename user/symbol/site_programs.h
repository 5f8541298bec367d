/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * site_programs.h - a BPF program per site, where the kernel has no BPF
 * cookies to tell one site's hit from another's (Linux 5.15): copies of a
 * loaded program, each with a site's id in place of its
 * SYMBOL_SITE_ID_MAGIC load (schema/symbol_site_id.h), verified each on
 * its own. A hit costs what it does with a cookie; the load costs a
 * verification per copy.
 *
 * The copies are the loaded program's instructions as libbpf gave them to
 * the kernel (maps' fds in place): its object must outlive them.
 */
#ifndef ETDUMP_SITE_PROGRAMS_H
#define ETDUMP_SITE_PROGRAMS_H

#include <stddef.h>
#include <stdint.h>

struct bpf_program;
struct site_programs;

/* For the sites of prog, loaded already. Negative errno. */
int site_programs_open(struct site_programs **out,
		       const struct bpf_program *prog);
/*
 * The copy for site id: its fd, loaded at the first call (said with
 * p_err() when the kernel refuses it); negative errno.
 */
int site_programs_fd(struct site_programs *p, uint32_t id);
/* How many copies are loaded, and the ns their loads took. */
size_t site_programs_loaded(const struct site_programs *p, uint64_t *ns);
void site_programs_free(struct site_programs *p);

#endif /* ETDUMP_SITE_PROGRAMS_H */
