// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include "lib/log.h"
#include "target/elf_file.h"
#include "target/every_word.h"
#include "target/exec_stop.h"
#include "target/probe_objects.h"
#include "target/probe_semaphores.h"
#include "target/target.h"

#define SEMAPHORES_SYMBOL "etdump_semaphores"

/* -ENOENT: no such symbol at vaddr; else 1 when it holds the word, or 0. */
static int symbol_says(const struct elf_file *f, uint64_t vaddr)
{
	GElf_Shdr sh;
	GElf_Sym sym;
	Elf_Scn *scn = elf_file_section(f, SHT_SYMTAB, NULL, &sh);
	Elf_Data *data = scn ? elf_getdata(scn, NULL) : NULL;
	const char *name;
	size_t i, n;

	if (!data || !sh.sh_entsize)
		return -ENOENT;
	n = sh.sh_size / sh.sh_entsize;
	for (i = 0; i < n; i++) {
		if (!gelf_getsym(data, (int)i, &sym) || sym.st_value != vaddr)
			continue;
		name = elf_strptr(f->elf, sh.sh_link, sym.st_name);
		if (name && !strcmp(name, SEMAPHORES_SYMBOL))
			return sym.st_size >= EVERY_WORD_OFFSET + 4;
	}
	return -ENOENT;
}

int every_word_present(const struct probe_object *obj, char *err,
		       size_t errlen)
{
	uint64_t vaddr = probe_semaphores_vaddr(obj);
	struct elf_file f = ELF_FILE_CLOSED;
	GElf_Shdr sh;
	int ret;

	if (!vaddr)
		return 0;
	ret = elf_file_open(&f, obj->path, err, errlen);
	if (ret)
		return ret;
	ret = symbol_says(&f, vaddr);
	/*
	 * Stripped: the word must at least be in the semaphores' section, so
	 * that nothing of the program's own lies there.
	 */
	if (ret == -ENOENT)
		ret = elf_file_section(&f, SHT_PROGBITS, ".probes", &sh) &&
		      vaddr >= sh.sh_addr &&
		      vaddr + EVERY_WORD_OFFSET + 4 <= sh.sh_addr + sh.sh_size;
	elf_file_close(&f);
	return ret;
}

/* One 32-bit word of process pid at addr: read into *was, then written. */
static int swap_word(pid_t pid, uint64_t addr, uint32_t val, uint32_t *was)
{
	struct iovec local = { .iov_base = was, .iov_len = sizeof(*was) };
	struct iovec remote = { .iov_base = (void *)(uintptr_t)addr,
				.iov_len = sizeof(*was) };

	if (process_vm_readv(pid, &local, 1, &remote, 1, 0) != sizeof(*was))
		return -errno;
	if (*was == val)
		return 0;
	local.iov_base = &val;
	if (process_vm_writev(pid, &local, 1, &remote, 1, 0) != sizeof(val))
		return -errno;
	return 0;
}

int every_word_set(pid_t pid, const struct probe_object *obj, uint32_t every,
		   uint32_t *was, char *err, size_t errlen)
{
	uint64_t addr;
	uint32_t old;
	int ret;

	ret = every_word_present(obj, err, errlen);
	if (ret <= 0)
		return ret ? ret : -ENOTSUP;
	ret = probe_semaphores_address(pid, obj, EVERY_WORD_OFFSET + 4, &addr,
				       err, errlen);
	if (ret)
		return ret;
	ret = swap_word(pid, addr + EVERY_WORD_OFFSET, every, &old);
	if (ret)
		snprintf(err, errlen, "%s in process %d: cannot write --every's word: %s",
			 obj->path, (int)pid, strerror(-ret));
	else if (was)
		*was = old;
	return ret;
}

int every_words_set(pid_t pid, const struct probe_objects *objs,
		    uint32_t every, char *err, size_t errlen)
{
	size_t i;
	int ret;

	for (i = 0; i < objs->n; i++) {
		if (!objs->v[i].etdump)
			continue;
		ret = every_word_set(pid, &objs->v[i], every, NULL, err,
				     errlen);
		if (ret == -ENOTSUP && every <= 1)
			continue;
		if (ret == -ENOTSUP)
			snprintf(err, errlen, "%s: built with an etdump_usdt.h older than ABI 3, which cannot leave runs out: rebuild it to record --every",
				 objs->v[i].path);
		if (ret)
			return ret;
	}
	return 0;
}

/* A command at its start: which files' words are written so far. */
struct at_start {
	const struct probe_objects *objs;
	uint32_t every;
	bool *written;
	size_t left;
	char *err;
	size_t errlen;
};

static int write_mapped(void *ctx, pid_t pid)
{
	struct at_start *a = ctx;
	size_t i;
	int ret;

	for (i = 0; i < a->objs->n; i++) {
		if (a->written[i])
			continue;
		ret = every_word_set(pid, &a->objs->v[i], a->every, NULL,
				     a->err, a->errlen);
		/* not mapped yet: the loader maps it later */
		if (ret == -ENOENT)
			continue;
		if (ret)
			return ret;
		a->written[i] = true;
		a->left--;
	}
	return !a->left;
}

int every_words_at_start(struct target *t, const struct probe_objects *objs,
			 uint32_t every, char *err, size_t errlen)
{
	struct at_start a = { .objs = objs, .every = every, .err = err,
			      .errlen = errlen };
	size_t i;
	int ret;

	a.written = calloc(objs->n ? objs->n : 1, sizeof(*a.written));
	if (!a.written)
		return -ENOMEM;
	for (i = 0; i < objs->n; i++) {
		ret = objs->v[i].etdump ? every_word_present(&objs->v[i], err,
							     errlen) : 0;
		if (ret < 0)
			goto out;
		if (!ret && objs->v[i].etdump) {
			ret = -ENOTSUP;
			snprintf(err, errlen, "%s: built with an etdump_usdt.h older than ABI 3, which cannot leave runs out: rebuild it to record --every",
				 objs->v[i].path);
			goto out;
		}
		a.written[i] = !objs->v[i].etdump;
		a.left += objs->v[i].etdump != 0;
	}
	ret = exec_stop_release(t, write_mapped, &a);
	if (ret == -EAGAIN) {
		for (i = 0; i < objs->n; i++)
			if (!a.written[i])
				p_warn("%s was not mapped while %s started: its runs are all recorded (--every applies to the files mapped at the start)",
				       objs->v[i].path, t->exe);
		ret = 0;
	}
	/* exited at once: record sees it and says so */
	if (ret == -ECHILD)
		ret = 0;
	else if (ret && ret != -ENOTSUP && !*err)
		snprintf(err, errlen, "%s: cannot hold it at its start: %s",
			 t->exe, strerror(-ret));
out:
	free(a.written);
	return ret;
}
