// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "target/elf_file.h"
#include "target/probe_objects.h"
#include "target/process_files.h"
#include "target/probe_semaphores.h"

/* The file offset of a semaphore: it lives in a PT_LOAD segment's bytes. */
static int semaphore_offset(const char *path, uint64_t vaddr, uint64_t len,
			    uint64_t *off, char *err, size_t errlen)
{
	struct elf_file f = ELF_FILE_CLOSED;
	int ret;

	ret = elf_file_open(&f, path, err, errlen);
	if (ret)
		return ret;
	ret = elf_file_offset(f.elf, vaddr, len, off) ? -ENOENT : 0;
	elf_file_close(&f);
	if (ret)
		snprintf(err, errlen, "%s: the etdump semaphores lie in no loaded segment",
			 path);
	return ret;
}

/*
 * Where the process has that file offset mapped private and writable: the
 * copy the kernel counts in (as it picks the vma for a uprobe's counter).
 */
static int semaphore_address(pid_t pid, const char *path, uint64_t off,
			     uint64_t len, uint64_t *addr)
{
	char maps[64], line[PATH_MAX + 128], perms[8], name[PATH_MAX];
	uint64_t start, end, pgoff;
	int at, ret = -ENOENT;
	FILE *f;

	/* the maps name a file reached through /proc/PID/... by its own name */
	process_file_maps_name(path, name);
	snprintf(maps, sizeof(maps), "/proc/%d/maps", (int)pid);
	f = fopen(maps, "re");
	if (!f)
		return -errno;
	while (ret && fgets(line, sizeof(line), f)) {
		at = 0;
		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %*s %*s %n",
			   &start, &end, perms, &pgoff, &at) < 4 || !at)
			continue;
		line[at + strcspn(line + at, "\n")] = '\0';
		if (strcmp(line + at, name) || perms[1] != 'w' ||
		    perms[3] != 'p' || off < pgoff || off + len > pgoff + (end - start))
			continue;
		*addr = start + (off - pgoff);
		ret = 0;
	}
	fclose(f);
	return ret;
}

uint64_t probe_semaphores_vaddr(const struct probe_object *obj)
{
	const struct usdt_probe *p;
	size_t i;

	/* every etdump probe names the same word (flush its second half) */
	for (i = 0; i < obj->probes.n; i++) {
		p = &obj->probes.probes[i];
		if (!strcmp(p->provider, "etdump") && p->semaphore &&
		    strcmp(p->name, "flush"))
			return p->semaphore;
	}
	return 0;
}

int probe_semaphores_address(pid_t pid, const struct probe_object *obj,
			     uint64_t len, uint64_t *addr, char *err,
			     size_t errlen)
{
	uint64_t vaddr = probe_semaphores_vaddr(obj), off;
	int ret;

	*addr = 0;
	if (!vaddr)
		return 0;   /* probes without semaphores: always fire */
	ret = semaphore_offset(obj->path, vaddr, len, &off, err, errlen);
	if (ret)
		return ret;
	ret = semaphore_address(pid, obj->path, off, len, addr);
	if (ret)
		snprintf(err, errlen, "%s: not mapped writable in process %d",
			 obj->path, (int)pid);
	return ret;
}

int probe_semaphores_read(pid_t pid, const struct probe_object *obj,
			  struct probe_holders *out, char *err, size_t errlen)
{
	uint64_t addr;
	uint16_t words[2];
	char mem[64];
	ssize_t n;
	int fd, ret;

	memset(out, 0, sizeof(*out));
	ret = probe_semaphores_address(pid, obj, sizeof(words), &addr, err,
				       errlen);
	if (ret || !addr)
		return ret;
	snprintf(mem, sizeof(mem), "/proc/%d/mem", (int)pid);
	fd = open(mem, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", mem, strerror(-ret));
		return ret;
	}
	n = pread(fd, words, sizeof(words), (off_t)addr);
	ret = n == sizeof(words) ? 0 : n < 0 ? -errno : -EIO;
	close(fd);
	if (ret) {
		snprintf(err, errlen, "%s: cannot read the etdump semaphores: %s",
			 mem, strerror(-ret));
		return ret;
	}
	out->per_scope = words[0];
	out->batch = words[1];
	return 0;
}
