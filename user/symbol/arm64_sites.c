// SPDX-License-Identifier: BSD-3-Clause
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
#include "lib/log.h"
#include "symbol/arm64_exits.h"
#include "symbol/arm64_insn.h"
#include "symbol/arm64_sites.h"
#include "target/elf_file.h"

/* Larger functions are left as they are: the read is not worth it. */
#define FUNCTION_MAX (1u << 20)

/* The registers the entry program reads at a site's entry (bit n: xn). */
static uint32_t regs_read(const struct symbol_site *s)
{
	/* allocate(this, size): bpf/symbols.bpf.c's alloc_entry() */
	return s->desc.kind == ETDUMP_FUNC_ALLOCATE ? 0x3 : 0;
}

/* Its exits found in the function's code c: placed there. */
static void place(struct symbol_site *s, const struct arm64_code *c)
{
	struct arm64_exits x = { .rets = s->exit_offsets,
				 .max = SYMBOL_SITE_EXITS };
	size_t k;

	if (arm64_exits_find(c, regs_read(s), &x)) {
		p_debug("symbol mode: %s keeps its single-stepped entry and uretprobe: it %s (+0x%llx)",
			s->function, x.why, (unsigned long long)x.where);
		return;
	}
	for (k = 0; k < x.nrets; k++)
		s->exit_offsets[k] += s->offset;
	s->nexits = x.nrets;
	s->offset += x.entry;
	s->single_step = false;
	s->exit_stepped = false;
	s->desc.flags &= ~ETDUMP_FUNC_STEPPED;
	p_debug("symbol mode: %s: entry at +0x%llx, %zu ret(s) probed: nothing single-stepped",
		s->function, (unsigned long long)x.entry, x.nrets);
}

void arm64_sites_place(struct symbol_site *s, int fd, uint64_t size)
{
	struct elf_file f = ELF_FILE_CLOSED;
	struct arm64_code c = { .size = size, .read = elf_file_read,
				.read_ctx = &f };
	uint8_t *code;
	char why[256];

	/* what cannot be read stays as it is: dearer, as right */
	code = size && size <= FUNCTION_MAX ? malloc(size) : NULL;
	if (code && pread(fd, code, size, s->offset) == (ssize_t)size &&
	    !elf_file_open(&f, s->path, why, sizeof(why)) &&
	    !elf_file_vaddr(f.elf, s->offset, &c.vaddr)) {
		c.bytes = code;
		place(s, &c);
	}
	elf_file_close(&f);
	free(code);
}

/*
 * Back to its first instruction: entry and uretprobe there, the entry
 * single-stepped.
 */
static void unplace(struct symbol_site *s)
{
	s->offset = s->start;
	s->nexits = 0;
	s->single_step = true;
	s->desc.flags |= ETDUMP_FUNC_STEPPED;
}

bool arm64_sites_need_regs(struct symbol_site *s, uint32_t regs)
{
	uint64_t len = s->offset - s->start, at;
	uint8_t *code;
	bool kept;
	int fd;

	if (!s->aarch64 || !s->nexits || !regs || s->offset <= s->start)
		return false;
	/* what cannot be read again goes back: dearer, as right */
	code = len <= FUNCTION_MAX ? malloc(len) : NULL;
	fd = code ? open(s->path, O_RDONLY | O_CLOEXEC) : -1;
	kept = fd >= 0 && pread(fd, code, len, s->start) == (ssize_t)len;
	for (at = 0; kept && at + 4 <= len; at += 4)
		kept = arm64_insn_keeps_regs(arm64_insn_word(code + at), regs);
	if (fd >= 0)
		close(fd);
	free(code);
	if (kept)
		return false;
	p_debug("symbol mode: %s keeps its single-stepped entry and uretprobe: the code before the entry at +0x%llx may change a register the entry reads",
		s->function, (unsigned long long)(s->offset - s->start));
	unplace(s);
	return true;
}
