// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "target/elf_file.h"
#include "target/process_files.h"
#include "target/process_objects.h"

/*
 * The loader's built-in search path, with Debian's multiarch folders of
 * the object's own architecture: an aarch64 binary looked at on an x86-64
 * machine (or the other way round) needs its own libraries.
 */
#define DIRS(multiarch) "/lib/" multiarch ":/usr/lib/" multiarch \
	":/usr/local/lib:/lib64:/usr/lib64:/lib:/usr/lib"

static const char *default_dirs(unsigned int machine)
{
	switch (machine) {
	case EM_X86_64:
		return DIRS("x86_64-linux-gnu");
	case EM_AARCH64:
		return DIRS("aarch64-linux-gnu");
	default:
		return DIRS(".");
	}
}

struct dynamic {
	char **needed;
	size_t n;
	char *rpath;
	char *runpath;
	char origin[PATH_MAX];  /* the object's folder, for $ORIGIN */
	unsigned int machine;   /* its e_machine */
};

/*
 * Add the file path names, once (by inode: a library may be named twice,
 * and the executable is in the maps too); a file that is gone is left out.
 * A /proc/PID/... path reaches a running process's file as it is
 * (process_files.h): resolving it would lose the way there.
 */
int path_list_add(struct path_list *l, const char *path)
{
	char real[PATH_MAX], **paths;
	struct stat st, *ids;
	size_t i;

	if (!strncmp(path, "/proc/", 6)) {
		if (snprintf(real, sizeof(real), "%s", path) >= PATH_MAX)
			return 0;
	} else if (!realpath(path, real)) {
		return 0;
	}
	if (stat(real, &st))
		return 0;
	for (i = 0; i < l->n; i++)
		if (l->ids[i].st_dev == st.st_dev && l->ids[i].st_ino == st.st_ino)
			return 0;
	paths = realloc(l->paths, (l->n + 1) * sizeof(*paths));
	if (!paths)
		return -ENOMEM;
	l->paths = paths;
	ids = realloc(l->ids, (l->n + 1) * sizeof(*ids));
	if (!ids)
		return -ENOMEM;
	l->ids = ids;
	ids[l->n] = st;
	paths[l->n] = strdup(real);
	if (!paths[l->n])
		return -ENOMEM;
	l->n++;
	return 1;
}

static int add_path(struct path_list *l, const char *path)
{
	int ret = path_list_add(l, path);

	return ret < 0 ? ret : 0;
}

/*
 * Every file mapped executable: the executable, the loader, libraries,
 * each reached through the process's view of it (process_files.h), also
 * one deleted or replaced on disk since it was mapped.
 */
static int from_maps(pid_t pid, struct path_list *out)
{
	char maps[64], line[PATH_MAX + 128], perms[8], *path;
	char mapped[96], reached[PATH_MAX];
	unsigned long long start, end;
	int at, ret = 0;
	size_t len;
	FILE *f;

	snprintf(maps, sizeof(maps), "/proc/%d/maps", (int)pid);
	f = fopen(maps, "re");
	if (!f)
		return -errno;
	while (!ret && fgets(line, sizeof(line), f)) {
		at = 0;
		if (sscanf(line, "%llx-%llx %7s %*s %*s %*s %n", &start, &end,
			   perms, &at) < 3 || !at || !strchr(perms, 'x'))
			continue;
		path = line + at;
		len = strcspn(path, "\n");
		path[len] = '\0';
		if (path[0] != '/')
			continue;
		snprintf(mapped, sizeof(mapped), "/proc/%d/map_files/%llx-%llx",
			 (int)pid, start, end);
		if (!process_file_reach(pid, path, mapped, reached))
			ret = add_path(out, reached);
	}
	fclose(f);
	return ret;
}

static void dynamic_free(struct dynamic *d)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		free(d->needed[i]);
	free(d->needed);
	free(d->rpath);
	free(d->runpath);
}

static int add_needed(struct dynamic *d, const char *name)
{
	char **needed = realloc(d->needed, (d->n + 1) * sizeof(*needed));

	if (!needed)
		return -ENOMEM;
	d->needed = needed;
	needed[d->n] = strdup(name);
	return needed[d->n++] ? 0 : -ENOMEM;
}

/* DT_NEEDED, DT_RPATH and DT_RUNPATH of one object. */
static int read_dynamic(const char *path, struct dynamic *d)
{
	struct elf_file f = ELF_FILE_CLOSED;
	char msg[64], copy[PATH_MAX];
	const char *s;
	Elf_Data *data;
	GElf_Ehdr ehdr;
	GElf_Shdr shdr;
	Elf_Scn *scn;
	GElf_Dyn dyn;
	size_t i;
	int ret;

	memset(d, 0, sizeof(*d));
	snprintf(copy, sizeof(copy), "%s", path);
	snprintf(d->origin, sizeof(d->origin), "%s", dirname(copy));
	ret = elf_file_open(&f, path, msg, sizeof(msg));
	if (!ret && gelf_getehdr(f.elf, &ehdr))
		d->machine = ehdr.e_machine;
	scn = ret ? NULL : elf_file_section(&f, SHT_DYNAMIC, NULL, &shdr);
	data = scn ? elf_getdata(scn, NULL) : NULL;
	for (i = 0; !ret && data && shdr.sh_entsize &&
		    i < shdr.sh_size / shdr.sh_entsize; i++) {
		if (!gelf_getdyn(data, i, &dyn) ||
		    !(s = elf_strptr(f.elf, shdr.sh_link, dyn.d_un.d_val)))
			continue;
		if (dyn.d_tag == DT_NEEDED)
			ret = add_needed(d, s);
		else if (dyn.d_tag == DT_RPATH && !d->rpath)
			ret = (d->rpath = strdup(s)) ? 0 : -ENOMEM;
		else if (dyn.d_tag == DT_RUNPATH && !d->runpath)
			ret = (d->runpath = strdup(s)) ? 0 : -ENOMEM;
	}
	elf_file_close(&f);
	/* not an ELF file, or no dynamic section: no libraries of its own */
	return ret == -ENOMEM ? ret : 0;
}

/* name in one of the colon-separated dirs, $ORIGIN expanded. */
static bool search_dirs(const char *dirs, const char *origin,
			const char *name, char out[PATH_MAX])
{
	const char *dir = dirs, *end;
	size_t len;

	for (; dir && *dir; dir = *end ? end + 1 : NULL) {
		end = dir + strcspn(dir, ":");
		len = end - dir;
		if (!strncmp(dir, "$ORIGIN", 7) || !strncmp(dir, "${ORIGIN}", 9)) {
			size_t skip = dir[1] == '{' ? 9 : 7;

			snprintf(out, PATH_MAX, "%s%.*s/%s", origin,
				 (int)(len - skip), dir + skip, name);
		} else {
			snprintf(out, PATH_MAX, "%.*s/%s", (int)len, dir, name);
		}
		if (len && !access(out, R_OK))
			return true;
	}
	return false;
}

static bool find_library(const struct dynamic *d, const char *name,
			 char out[PATH_MAX])
{
	if (strchr(name, '/')) {
		snprintf(out, PATH_MAX, "%s", name);
		return !access(out, R_OK);
	}
	return (!d->runpath && search_dirs(d->rpath, d->origin, name, out)) ||
	       search_dirs(getenv("LD_LIBRARY_PATH"), d->origin, name, out) ||
	       search_dirs(d->runpath, d->origin, name, out) ||
	       search_dirs(default_dirs(d->machine), d->origin, name, out);
}

/* Breadth first, as the loader loads them; each object once. */
static int from_needed(struct path_list *out)
{
	char lib[PATH_MAX];
	struct dynamic d;
	size_t i, j;
	int ret = 0;

	for (i = 0; !ret && i < out->n; i++) {
		ret = read_dynamic(out->paths[i], &d);
		for (j = 0; !ret && j < d.n; j++)
			if (find_library(&d, d.needed[j], lib))
				ret = add_path(out, lib);
		dynamic_free(&d);
	}
	return ret;
}

int process_exe(pid_t pid, char out[PATH_MAX])
{
	char link[64], name[PATH_MAX];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/%d/exe", (int)pid);
	n = readlink(link, name, sizeof(name) - 1);
	if (n < 0)
		return -errno;
	name[n] = '\0';
	if (process_file_reach(pid, name, link, out))
		snprintf(out, PATH_MAX, "%s", name);
	return 0;
}

int process_objects(pid_t pid, const char *exe, bool running,
		    struct path_list *out)
{
	int ret;

	memset(out, 0, sizeof(*out));
	ret = add_path(out, exe);
	if (!ret)
		ret = running ? from_maps(pid, out) : from_needed(out);
	if (ret)
		path_list_free(out);
	return ret;
}

void path_list_free(struct path_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		free(l->paths[i]);
	free(l->paths);
	free(l->ids);
	l->paths = NULL;
	l->ids = NULL;
	l->n = 0;
}
