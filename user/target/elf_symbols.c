// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include "target/elf_file.h"
#include "target/elf_symbols.h"
#include "target/process_files.h"

#define NT_GNU_BUILD_ID_TYPE 3

/* A debug file found: where to read it, and how to name it. */
struct debug_found {
	char read_path[PATH_MAX];
	char shown[PATH_MAX];
	int fd;                 /* a file in a process's root, or -1 */
};
#define CRC_CHUNK (64 * 1024)

static void read_build_id(const struct elf_file *f, char out[41])
{
	size_t off, name_off, desc_off, i;
	const unsigned char *desc;
	Elf_Scn *scn = NULL;
	GElf_Nhdr nhdr;
	GElf_Shdr shdr;
	Elf_Data *data;

	out[0] = '\0';
	while ((scn = elf_nextscn(f->elf, scn))) {
		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_NOTE)
			continue;
		data = elf_getdata(scn, NULL);
		off = 0;
		while (data && (off = gelf_getnote(data, off, &nhdr, &name_off,
						   &desc_off))) {
			if (nhdr.n_type != NT_GNU_BUILD_ID_TYPE ||
			    nhdr.n_namesz != 4 ||
			    memcmp((char *)data->d_buf + name_off, "GNU", 4) ||
			    nhdr.n_descsz > 20)
				continue;
			desc = (unsigned char *)data->d_buf + desc_off;
			for (i = 0; i < nhdr.n_descsz; i++)
				sprintf(out + 2 * i, "%02x", desc[i]);
			return;
		}
	}
}

/* .gnu_debuglink: a NUL-terminated name, padding to 4, a CRC-32. */
static void read_debuglink(const struct elf_file *f, char *name, size_t len,
			   uint32_t *crc)
{
	Elf_Scn *scn;
	GElf_Shdr shdr;
	Elf_Data *data;
	size_t n, at;

	name[0] = '\0';
	scn = elf_file_section(f, SHT_PROGBITS, ".gnu_debuglink", &shdr);
	data = scn ? elf_getdata(scn, NULL) : NULL;
	if (!data || !data->d_buf)
		return;
	n = strnlen(data->d_buf, data->d_size);
	at = (n + 4) & ~(size_t)3;
	if (n == data->d_size || n >= len || at + 4 > data->d_size)
		return;
	memcpy(name, data->d_buf, n + 1);
	memcpy(crc, (char *)data->d_buf + at, 4);
}

static uint32_t file_crc32(const char *path, int *err)
{
	unsigned char *buf = malloc(CRC_CHUNK);
	uLong crc = crc32(0, NULL, 0);
	ssize_t n;
	int fd;

	*err = -ENOMEM;
	if (!buf)
		return 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	*err = fd < 0 ? -errno : 0;
	while (fd >= 0 && (n = read(fd, buf, CRC_CHUNK)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			*err = -errno;
			break;
		}
		crc = crc32(crc, buf, n);
	}
	if (fd >= 0)
		close(fd);
	free(buf);
	return crc;
}

/*
 * Is `cand` path's debug file: an ELF file with a .symtab and the same
 * build-id, or (only a debuglink to go by) the CRC the link records?
 */
static bool debug_file_fits(const char *cand, const char *build_id,
			    const uint32_t *crc)
{
	struct elf_file f = ELF_FILE_CLOSED;
	char msg[64], id[41];
	GElf_Shdr shdr;
	bool fits = false;
	int err;

	if (access(cand, R_OK) || elf_file_open(&f, cand, msg, sizeof(msg)))
		goto out;
	if (!elf_file_section(&f, SHT_SYMTAB, NULL, &shdr))
		goto out;
	read_build_id(&f, id);
	if (*build_id && *id)
		fits = !strcmp(id, build_id);
	else
		fits = !crc ||
		       ((uint32_t)file_crc32(cand, &err) == *crc && !err);
out:
	elf_file_close(&f);
	return fits;
}

/*
 * A debug file named in the root of the process whose file `path` reaches
 * through /proc/PID/... (process_files.h), its links resolved in that
 * root: read through the fd (read_path), shown as that root's (shown).
 */
static bool fits_in_root(const char *path, const char *name,
			 const char *build_id, const uint32_t *crc,
			 struct debug_found *found)
{
	int fd = process_root_open(path, name);

	if (fd < 0)
		return false;
	snprintf(found->read_path, PATH_MAX, "/proc/self/fd/%d", fd);
	if (!debug_file_fits(found->read_path, build_id, crc)) {
		close(fd);
		return false;
	}
	found->fd = fd;
	snprintf(found->shown, PATH_MAX, "%.*s/root%s",
		 (int)strcspn(path + 6, "/") + 6, path, name);
	return true;
}

/*
 * Where gdb looks: by build-id, then by the debuglink's name; for a
 * process in another root (a container) in its root first, then on the
 * host.
 */
static bool find_debug_file(const char *path,
			    const struct elf_symbols_info *info, uint32_t crc,
			    struct debug_found *found)
{
	/* gdb's order: next to the file, in .debug there, under the root */
	static const struct {
		const char *root, *sub;
	} places[] = { { "", "" }, { "", "/.debug" }, { ELF_DEBUG_ROOT, "" } };
	char real[PATH_MAX], name[PATH_MAX], *dir;
	char *out = found->read_path;
	size_t i;

	if (info->build_id[0]) {
		snprintf(name, PATH_MAX, "%s/.build-id/%.2s/%s.debug",
			 ELF_DEBUG_ROOT, info->build_id, info->build_id + 2);
		if (fits_in_root(path, name, info->build_id, NULL, found))
			return true;
		snprintf(out, PATH_MAX, "%s", name);
		if (debug_file_fits(out, info->build_id, NULL))
			goto on_host;
	}
	if (!info->debuglink[0])
		return false;
	process_file_shown(path, real);
	dir = dirname(real);
	for (i = 0; real[0] == '/' && i < sizeof(places) / sizeof(places[0]); i++) {
		snprintf(name, PATH_MAX, "%s%s%s/%s", places[i].root, dir,
			 places[i].sub, info->debuglink);
		if (fits_in_root(path, name, info->build_id, &crc, found))
			return true;
	}
	if (!realpath(path, real))
		return false;
	dir = dirname(real);
	for (i = 0; i < sizeof(places) / sizeof(places[0]); i++) {
		snprintf(out, PATH_MAX, "%s%s%s/%s", places[i].root, dir,
			 places[i].sub, info->debuglink);
		if (debug_file_fits(out, info->build_id, &crc))
			goto on_host;
	}
	return false;
on_host:
	snprintf(found->shown, PATH_MAX, "%s", out);
	return true;
}

/* Functions of one symbol table of `symelf`, placed in `bin`'s file. */
static int each_function(Elf *symelf, Elf_Scn *scn, Elf *bin,
			 elf_symbol_fn fn, void *ctx, size_t *count)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	const char *name;
	GElf_Shdr shdr;
	uint64_t off;
	size_t i, n;
	GElf_Sym sym;
	int ret;

	if (!data || !gelf_getshdr(scn, &shdr) || !shdr.sh_entsize)
		return 0;
	n = shdr.sh_size / shdr.sh_entsize;
	for (i = 0; i < n; i++) {
		if (!gelf_getsym(data, i, &sym) ||
		    GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
		    sym.st_shndx == SHN_UNDEF || !sym.st_value)
			continue;
		name = elf_strptr(symelf, shdr.sh_link, sym.st_name);
		if (!name || !*name || elf_file_offset(bin, sym.st_value, 1, &off))
			continue;
		(*count)++;
		ret = fn(ctx, name, off, sym.st_size);
		if (ret)
			return ret;
	}
	return 0;
}

/* A named debug file must be one, and this file's. */
static int check_named_debug_file(const char *path, const char *debug_file,
				  const char *build_id, char *err,
				  size_t errlen)
{
	if (debug_file_fits(debug_file, build_id, NULL))
		return 0;
	snprintf(err, errlen, "%s: not a debug file of %s (no .symtab, or another build-id than %s)",
		 debug_file, path, *build_id ? build_id : "none");
	return -EINVAL;
}

int elf_symbols_read(const char *path, const char *debug_file,
		     elf_symbol_fn fn, void *ctx,
		     struct elf_symbols_info *info, char *err, size_t errlen)
{
	struct elf_file bin = ELF_FILE_CLOSED, dbg = ELF_FILE_CLOSED;
	struct debug_found found = { .fd = -1 };
	Elf_Scn *symtab, *dynsym;
	GElf_Shdr shdr;
	uint32_t crc = 0;
	int ret;

	memset(info, 0, sizeof(*info));
	ret = elf_file_open(&bin, path, err, errlen);
	if (ret)
		goto out;
	read_build_id(&bin, info->build_id);
	read_debuglink(&bin, info->debuglink, sizeof(info->debuglink), &crc);
	symtab = elf_file_section(&bin, SHT_SYMTAB, NULL, &shdr);
	info->symtab = symtab;
	if (symtab) {
		ret = each_function(bin.elf, symtab, bin.elf, fn, ctx,
				    &info->functions);
	} else if (debug_file) {
		ret = check_named_debug_file(path, debug_file, info->build_id,
					     err, errlen);
		snprintf(info->debug_file, PATH_MAX, "%s", debug_file);
	} else if (find_debug_file(path, info, crc, &found)) {
		snprintf(info->debug_file, PATH_MAX, "%s", found.shown);
	} else {
		info->debug_file[0] = '\0';
	}
	if (!ret && !symtab && info->debug_file[0]) {
		ret = elf_file_open(&dbg, found.read_path[0] ? found.read_path :
				    info->debug_file, err, errlen);
		symtab = ret ? NULL : elf_file_section(&dbg, SHT_SYMTAB, NULL,
						       &shdr);
		if (symtab)
			ret = each_function(dbg.elf, symtab, bin.elf, fn, ctx,
					    &info->functions);
	}
	dynsym = ret ? NULL : elf_file_section(&bin, SHT_DYNSYM, NULL, &shdr);
	if (dynsym)
		ret = each_function(bin.elf, dynsym, bin.elf, fn, ctx,
				    &info->functions);
out:
	elf_file_close(&dbg);
	elf_file_close(&bin);
	if (found.fd >= 0)
		close(found.fd);
	return ret;
}
