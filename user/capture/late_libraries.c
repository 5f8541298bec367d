// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "capture/late_libraries.h"
#include "lib/grow_array.h"
#include "lib/log.h"
#include "target/maps_digest.h"
#include "target/process_files.h"
#include "target/process_objects.h"

/* A file looked at once, by inode. */
struct known_file {
	dev_t dev;
	ino_t ino;
};

struct late_libraries {
	pid_t pid;
	struct stat image;      /* the executable whose files are known */
	bool have_image;
	struct known_file *known;
	size_t n, cap;
	/* a library without etdump probes: symbol mode's to look at */
	late_stock_fn on_stock;
	void *stock_ctx;
	/* the executable mappings last looked at in full (maps_digest.h) */
	uint64_t digest;
	bool have_digest;
	FILE *maps;             /* /proc/PID/maps, kept open; NULL: not yet */
};

static struct known_file *find(const struct late_libraries *l,
			       const struct stat *st)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (l->known[i].dev == st->st_dev && l->known[i].ino == st->st_ino)
			return &l->known[i];
	return NULL;
}

static int remember(struct late_libraries *l, const struct stat *st)
{
	if (find(l, st))
		return 0;
	if (grow_array((void **)&l->known, &l->cap, l->n, 1, sizeof(*l->known)))
		return -ENOMEM;
	l->known[l->n++] = (struct known_file){ st->st_dev, st->st_ino };
	return 0;
}

/*
 * The files an exec brings, marked seen: the executable and the libraries
 * it needs (DT_NEEDED, as whoever follows the exec attaches them), not
 * what its maps hold already, which may be a dlopen() as early as that.
 */
static int seed_image(struct late_libraries *l, const char *exe)
{
	struct path_list files;
	size_t i;
	int ret = 0;

	if (process_objects(l->pid, exe, false, &files))
		return 0;
	for (i = 0; !ret && i < files.n; i++)
		ret = remember(l, &files.ids[i]);
	path_list_free(&files);
	return ret;
}

/*
 * 1 when the process runs another image since the last look (its exec's
 * files are then known, and its own follower's), 0, or -errno (gone).
 */
static int new_image(struct late_libraries *l, char exe[PATH_MAX])
{
	struct stat st;
	int ret = process_exe(l->pid, exe);

	if (ret)
		return ret;
	if (stat(exe, &st))
		return -errno;
	if (l->have_image && st.st_dev == l->image.st_dev &&
	    st.st_ino == l->image.st_ino)
		return 0;
	l->image = st;
	l->have_image = true;
	ret = seed_image(l, exe);
	return ret ? ret : 1;
}

int late_libraries_open(struct late_libraries **out, pid_t pid,
			const struct probe_objects *objs)
{
	struct late_libraries *l = calloc(1, sizeof(*l));
	char exe[PATH_MAX];
	struct stat st;
	size_t i;
	int ret = 0;

	*out = NULL;
	if (!l)
		return -ENOMEM;
	l->pid = pid;
	for (i = 0; !ret && i < objs->n; i++)
		if (!stat(objs->v[i].path, &st))
			ret = remember(l, &st);
	if (!ret && new_image(l, exe) == -ENOMEM)
		ret = -ENOMEM;
	if (ret) {
		late_libraries_close(l);
		return ret;
	}
	*out = l;
	return 0;
}

static int attach_file(struct late_libraries *l, struct capture *cap,
		       struct follow_children *fc,
		       const struct path_list *files, size_t at)
{
	struct probe_objects one = { 0 };
	char label[2 * PATH_MAX + 48];
	int n = 0, ret = probe_objects_add_file(&one, files->paths[at]);

	if (ret < 0)
		return ret;
	process_file_label(files->paths[at], label, sizeof(label));
	if (!ret) {
		ret = l->on_stock ? l->on_stock(l->stock_ctx, l->pid,
						files->paths[at], label) : 0;
		return ret < 0 ? ret : 0;
	}
	/* a followed child's events count from now on (a target's do) */
	ret = fc ? follow_children_record(fc, l->pid, true) : 0;
	if (!ret)
		ret = capture_attach_child(cap, &one, l->pid, &n);
	probe_objects_free(&one);
	/* gone meanwhile, or said by the attach: the recording goes on */
	if (ret)
		return ret == -ENOMEM ? ret : 0;
	if (!n) {
		p_warn("PID %d loaded %s, whose etdump probes this recording does not use (batched mode takes its flush probe: record it with --precise)",
		       (int)l->pid, label);
		return 0;
	}
	p_info("PID %d loaded %s after the attach: attached %d probe(s)",
	       (int)l->pid, label, n);
	return 0;
}

int late_libraries_check(struct late_libraries *l, struct capture *cap,
			 struct follow_children *fc)
{
	struct path_list files;
	char exe[PATH_MAX];
	uint64_t digest = 0;
	bool digest_ok;
	size_t i;
	int ret;

	if (!l->maps) {
		snprintf(exe, sizeof(exe), "/proc/%d/maps", (int)l->pid);
		l->maps = fopen(exe, "re");
	}
	digest_ok = l->maps && !maps_digest_file(l->maps, &digest);
	/* the same files at the same places: nothing new (nor an exec) */
	if (digest_ok && l->have_digest && digest == l->digest)
		return 0;
	/* an exec's new image is read from a file opened after it */
	if (l->maps)
		fclose(l->maps);
	l->maps = NULL;
	ret = new_image(l, exe);
	/* a new image: what it brings is its follower's; gone: nothing */
	if (ret)
		return ret == -ENOMEM ? ret : 0;
	if (process_objects(l->pid, exe, true, &files))
		return 0;
	for (i = 0; !ret && i < files.n; i++) {
		if (find(l, &files.ids[i]))
			continue;
		ret = remember(l, &files.ids[i]);
		if (!ret && !follow_children_is_armed(fc, &files.ids[i]))
			ret = attach_file(l, cap, fc, &files, i);
	}
	path_list_free(&files);
	if (ret)
		p_err("looking for libraries loaded later: %s", strerror(-ret));
	/* every file of these maps is known now: until they change */
	l->digest = digest;
	l->have_digest = digest_ok && !ret;
	return ret;
}

void late_libraries_on_stock(struct late_libraries *l, late_stock_fn fn,
			     void *ctx)
{
	l->on_stock = fn;
	l->stock_ctx = ctx;
}

void late_libraries_close(struct late_libraries *l)
{
	if (l) {
		grow_array_free(l->known, l->cap, sizeof(*l->known));
		if (l->maps)
			fclose(l->maps);
	}
	free(l);
}
