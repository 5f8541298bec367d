// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "lib/clock.h"
#include "lib/load_retry.h"
#include "lib/log.h"
#include "schema/symbol_site_id.h"
#include "symbol/site_programs.h"

struct site_programs {
	const struct bpf_program *prog;
	const struct bpf_insn *insns;
	size_t ninsns;
	struct bpf_insn *copy;          /* the one being patched */
	size_t *at;                     /* the magic loads' indexes */
	size_t nat;
	int *fds;                       /* by site id; -1: not loaded */
	size_t nfds;
	size_t loaded;
	uint64_t load_ns;
};

static bool is_magic(const struct bpf_insn *insn)
{
	return insn[0].code == (BPF_LD | BPF_IMM | BPF_DW) &&
	       insn[0].src_reg == 0 &&
	       (uint32_t)insn[0].imm == (uint32_t)SYMBOL_SITE_ID_MAGIC &&
	       (uint32_t)insn[1].imm == (uint32_t)(SYMBOL_SITE_ID_MAGIC >> 32);
}

int site_programs_open(struct site_programs **out,
		       const struct bpf_program *prog)
{
	struct site_programs *p = calloc(1, sizeof(*p));
	size_t i;

	*out = NULL;
	if (!p)
		return -ENOMEM;
	p->prog = prog;
	p->insns = bpf_program__insns(prog);
	p->ninsns = bpf_program__insn_cnt(prog);
	p->copy = malloc(p->ninsns * sizeof(*p->copy));
	p->at = calloc(p->ninsns, sizeof(*p->at));
	if (!p->copy || !p->at) {
		site_programs_free(p);
		return -ENOMEM;
	}
	/* a 64-bit load is two instructions: the second is never the first */
	for (i = 0; i + 1 < p->ninsns; i++)
		if (is_magic(&p->insns[i]))
			p->at[p->nat++] = i++;
	if (!p->nat) {
		p_err("%s: no site id to set in its copies (built without SYMBOL_SITE_ID_MAGIC?)",
		      bpf_program__name(prog));
		site_programs_free(p);
		return -EINVAL;
	}
	memcpy(p->copy, p->insns, p->ninsns * sizeof(*p->copy));
	*out = p;
	return 0;
}

/* What load_copy() is handed through load_retry(). */
struct copy_load {
	const struct site_programs *p;
	struct bpf_prog_load_opts *opts;
};

/* The copy as it stands: its fd or -errno. */
static int load_copy(void *ctx, bool last)
{
	const struct copy_load *l = ctx;
	const struct site_programs *p = l->p;

	(void)last;     /* the callers say the error, after the last try */
	l->opts->expected_attach_type =
		bpf_program__expected_attach_type(p->prog);
	/* the object's license: its GPL helpers are the copies' too */
	return bpf_prog_load(bpf_program__type(p->prog),
			     bpf_program__name(p->prog), "Dual BSD/GPL",
			     p->copy, p->ninsns, l->opts);
}

/* The kernel's refusal of a copy, with its verifier's log under -v. */
static void say_refused(const struct site_programs *p, const char *name,
			int err)
{
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .log_level = 1);
	struct copy_load load = { .p = p, .opts = &opts };
	static char log[1 << 16];
	int fd;

	opts.log_buf = log;
	opts.log_size = sizeof(log);
	fd = load_retry(load_copy, NULL, &load);
	if (fd >= 0)
		close(fd);
	else
		p_debug("%s: the verifier's log:\n%s", name, log);
	p_err("cannot load a copy of %s per site (the kernel has no BPF cookies): %s (run with -v for the verifier's log)",
	      name, strerror(-err));
}

/* Room for site id's fd (ids are dense: a site's index, or a few more). */
static int fd_slot(struct site_programs *p, uint32_t id)
{
	size_t n = (size_t)id + 1, i;
	int *fds;

	if (n <= p->nfds)
		return 0;
	fds = realloc(p->fds, n * sizeof(*fds));
	if (!fds)
		return -ENOMEM;
	for (i = p->nfds; i < n; i++)
		fds[i] = -1;
	p->fds = fds;
	p->nfds = n;
	return 0;
}

int site_programs_fd(struct site_programs *p, uint32_t id)
{
	LIBBPF_OPTS(bpf_prog_load_opts, opts);
	struct copy_load load = { .p = p, .opts = &opts };
	const char *name = bpf_program__name(p->prog);
	uint64_t t0;
	size_t i;
	int fd = fd_slot(p, id);

	if (fd)
		return fd;
	if (p->fds[id] >= 0)
		return p->fds[id];
	for (i = 0; i < p->nat; i++) {
		p->copy[p->at[i]].imm = (int32_t)id;
		p->copy[p->at[i] + 1].imm = 0;
	}
	t0 = monotonic_ns();
	fd = load_retry(load_copy, NULL, &load);
	p->load_ns += monotonic_ns() - t0;
	if (fd < 0) {
		say_refused(p, name, fd);
		return fd;
	}
	p->fds[id] = fd;
	p->loaded++;
	return fd;
}

size_t site_programs_loaded(const struct site_programs *p, uint64_t *ns)
{
	*ns = p ? p->load_ns : 0;
	return p ? p->loaded : 0;
}

void site_programs_free(struct site_programs *p)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < p->nfds; i++)
		if (p->fds[i] >= 0)
			close(p->fds[i]);
	free(p->fds);
	free(p->at);
	free(p->copy);
	free(p);
}
