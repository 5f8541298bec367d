// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "lib/file_io.h"
#include "target/usdt_notes.h"

#define STAPSDT_NOTE_TYPE 3

static int add_probe(struct usdt_probe_list *out, const char *desc, size_t len,
		     int elf_class)
{
	size_t addr_size = elf_class == ELFCLASS32 ? 4 : 8;
	const char *provider, *name, *args, *end = desc + len;
	struct usdt_probe *probes, *p;
	uint64_t addr[3] = { 0 };
	int i;

	if (len < 3 * addr_size + 3)
		return -EINVAL;
	for (i = 0; i < 3; i++)
		memcpy(&addr[i], desc + i * addr_size, addr_size);
	provider = desc + 3 * addr_size;
	name = memchr(provider, '\0', end - provider);
	if (!name || ++name >= end)
		return -EINVAL;
	args = memchr(name, '\0', end - name);
	if (!args || ++args >= end || !memchr(args, '\0', end - args))
		return -EINVAL;

	probes = realloc(out->probes, (out->n + 1) * sizeof(*probes));
	if (!probes)
		return -ENOMEM;
	out->probes = probes;
	p = &probes[out->n];
	p->pc = addr[0];
	p->base = addr[1];
	p->semaphore = addr[2];
	p->provider = strdup(provider);
	p->name = strdup(name);
	p->args = strdup(args);
	out->n++;
	if (!p->provider || !p->name || !p->args)
		return -ENOMEM;
	return 0;
}

static int read_note_section(Elf_Data *data, struct usdt_probe_list *out,
			     int elf_class)
{
	size_t off = 0, name_off, desc_off;
	GElf_Nhdr nhdr;
	int err;

	while ((off = gelf_getnote(data, off, &nhdr, &name_off, &desc_off)) > 0) {
		if (nhdr.n_type != STAPSDT_NOTE_TYPE ||
		    nhdr.n_namesz != sizeof("stapsdt") ||
		    strcmp((char *)data->d_buf + name_off, "stapsdt"))
			continue;
		err = add_probe(out, (char *)data->d_buf + desc_off,
				nhdr.n_descsz, elf_class);
		if (err)
			return err;
	}
	return 0;
}

/* path names the file in messages; elf may be NULL (libelf failed) */
static int read_elf(Elf *elf, const char *path, struct usdt_probe_list *out,
		    char *err, size_t errlen)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	int ret = 0;

	if (!elf || elf_kind(elf) != ELF_K_ELF ||
	    elf_getshdrstrndx(elf, &shstrndx)) {
		snprintf(err, errlen, "%s: not an ELF file", path);
		return -ENOEXEC;
	}
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr shdr;
		const char *name;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_NOTE)
			continue;
		name = elf_strptr(elf, shstrndx, shdr.sh_name);
		if (!name || strcmp(name, ".note.stapsdt"))
			continue;
		data = elf_getdata(scn, NULL);
		if (!data)
			continue;
		ret = read_note_section(data, out, gelf_getclass(elf));
		if (ret) {
			snprintf(err, errlen, "%s: malformed .note.stapsdt",
				 path);
			return ret;
		}
	}
	return 0;
}

int usdt_notes_read(const char *path, struct usdt_probe_list *out, char *err,
		    size_t errlen)
{
	int fd, ret;

	memset(out, 0, sizeof(*out));
	/* a FIFO is never opened for reading: no writer would end the wait */
	fd = file_open_regular(path);
	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", path, file_error(fd));
		return fd;
	}
	ret = usdt_notes_read_fd(fd, path, out, err, errlen);
	close(fd);
	return ret;
}

int usdt_notes_read_fd(int fd, const char *name, struct usdt_probe_list *out,
		       char *err, size_t errlen)
{
	Elf *elf;
	int ret;

	memset(out, 0, sizeof(*out));
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	ret = read_elf(elf, name, out, err, errlen);
	if (elf)
		elf_end(elf);
	if (ret)
		usdt_notes_free(out);
	return ret;
}

int usdt_notes_read_mem(void *buf, size_t len, struct usdt_probe_list *out,
			char *err, size_t errlen)
{
	Elf *elf;
	int ret;

	memset(out, 0, sizeof(*out));
	elf_version(EV_CURRENT);
	elf = elf_memory(buf, len);
	ret = read_elf(elf, "(memory)", out, err, errlen);
	if (elf)
		elf_end(elf);
	if (ret)
		usdt_notes_free(out);
	return ret;
}

size_t usdt_notes_count(const struct usdt_probe_list *list,
			const char *provider)
{
	size_t i, n = 0;

	for (i = 0; i < list->n; i++)
		n += !strcmp(list->probes[i].provider, provider);
	return n;
}

void usdt_notes_free(struct usdt_probe_list *list)
{
	size_t i;

	for (i = 0; i < list->n; i++) {
		free(list->probes[i].provider);
		free(list->probes[i].name);
		free(list->probes[i].args);
	}
	free(list->probes);
	list->probes = NULL;
	list->n = 0;
}
