// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/log.h"
#include "symbol/site_list.h"
#include "symbol/xnnpack_sites.h"
#include "target/elf_file.h"

void xnnpack_sites_symbol(struct xnn_found *f, const char *symbol,
			  uint64_t offset, uint64_t size)
{
	int i;

	for (i = 0; i < XNN_NFUNCS; i++) {
		if (!strcmp(symbol, xnn_func_names[i])) {
			f->offset[i] = offset;
			f->size[i] = size;
		}
	}
}

static void add_site(struct symbol_site *s, const struct elf_file *f,
		     const struct xnn_object *x)
{
	s->path = x->path;
	s->xnn = x;
	s->function = strdup(xnn_func_names[XNN_RUN_OPERATOR]);
	/* both are in the code the symbols were found in */
	elf_file_offset(f->elf, x->ops.call_at, 5, &s->offset);
	elf_file_offset(f->elf, x->ops.exit_at, 1, &s->exit_offsets[0]);
	s->nexits = 1;
	s->desc.kind = ETDUMP_FUNC_XNN_OP;
	/* a call rel32, which the kernel emulates; the exit may not be */
	s->single_step = x->ops.exit_stepped;
	s->exit_stepped = x->ops.exit_stepped;
	s->desc.flags = s->single_step ? ETDUMP_FUNC_STEPPED : 0;
	p_debug("symbol mode: %s+0x%llx call of xnn_run_operator_with_index, exit at +0x%llx%s: XNNPACK operators, %u types named",
		x->path, (unsigned long long)s->offset,
		(unsigned long long)s->exit_offsets[0],
		x->ops.exit_stepped ? " (single-stepped)" : "", x->ops.ntypes);
}

/* One more object with XNNPACK, its operators read: NULL, out of memory. */
static struct xnn_object *new_object(struct symbol_sites *s, const char *path)
{
	struct xnn_object **grown, *x = calloc(1, sizeof(*x));

	grown = x ? realloc(s->xnn, (s->nxnn + 1) * sizeof(*grown)) : NULL;
	if (!grown) {
		free(x);
		return NULL;
	}
	s->xnn = grown;
	s->xnn[s->nxnn++] = x;
	x->path = path;
	return x;
}

int xnnpack_sites_add(struct symbol_sites *s, const char *path,
		      const struct xnn_found *found)
{
	struct elf_file f = ELF_FILE_CLOSED;
	struct xnn_image img = { .read = elf_file_read, .ctx = &f };
	struct xnn_ops ops = { 0 };
	struct symbol_site *site;
	struct xnn_object *x;
	char why[256] = "";
	int i, ret;

	if (!found->offset[XNN_INVOKE_RUNTIME])
		return 0;
	if (elf_file_open(&f, path, why, sizeof(why))) {
		p_warn("%s: XNNPACK's operators are not recorded: %s", path,
		       why);
		elf_file_close(&f);
		return 0;
	}
	for (i = 0; i < XNN_NFUNCS; i++) {
		if (found->offset[i] &&
		    elf_file_vaddr(f.elf, found->offset[i], &img.addr[i]))
			img.addr[i] = 0;
		img.size[i] = found->size[i];
	}
	ret = xnn_ops_read(&ops, &img, why, sizeof(why));
	if (ret == -EPROTO)
		p_warn("%s: XNNPACK's operators are not recorded, their DELEGATE_CALL is: its code is not the layout this reads (XNNPACK 92a7ad5's): %s",
		       path, why);
	if (!ret) {
		x = new_object(s, path);
		site = x ? symbol_sites_new(s) : NULL;
		if (x) {
			x->ops = ops;
			ops = (struct xnn_ops){ 0 };
			if (x->ops.forget_at &&
			    elf_file_offset(f.elf, x->ops.forget_at, 1,
					    &x->forget_offset))
				x->forget_offset = 0;
		}
		if (site) {
			add_site(site, &f, x);
			s->single_step += site->single_step;
		}
		ret = site && site->function ? 0 : -ENOMEM;
	}
	xnn_ops_free(&ops);
	elf_file_close(&f);
	return ret == -ENOMEM ? ret : 0;
}
