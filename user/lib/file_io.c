// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "lib/direct_write.h"
#include "lib/file_io.h"
#include "lib/io_all.h"
#include "lib/log.h"

static int can_create(const char *path);

/* Whether path's own name is longer than dir's file system takes one. */
static bool name_too_long(const char *path, const char *dir)
{
	const char *slash = strrchr(path, '/');
	long max = pathconf(dir, _PC_NAME_MAX);

	return max > 0 && strlen(slash ? slash + 1 : path) > (size_t)max;
}

int output_check(const char *path, bool force)
{
	char *copy, *dir;
	struct stat st;
	int ret = 0;

	if (!*path) {
		p_err("an empty output file name");
		return -ENOENT;
	}
	if (!lstat(path, &st) && S_ISLNK(st.st_mode)) {
		p_err("%s: %s", path, file_error(-ELOOP));
		return -ELOOP;
	}
	/* said before the work starts, not after it is done */
	if (!stat(path, &st) && S_ISDIR(st.st_mode)) {
		p_err("%s: %s", path, strerror(EISDIR));
		return -EISDIR;
	}
	if (!force && !access(path, F_OK)) {
		p_err("%s: file exists (use --force to overwrite)", path);
		return -EEXIST;
	}
	copy = strdup(path);
	if (!copy)
		return -ENOMEM;
	dir = dirname(copy);
	/* root passes access() where nothing can be made (/proc): try it */
	ret = access(dir, W_OK) ? -errno : can_create(path);
	/* the temporary file's name may be a shorter one than path's */
	if (!ret && name_too_long(path, dir))
		ret = -ENAMETOOLONG;
	if (ret)
		p_err("%s: cannot write in %s: %s", path, dir, strerror(-ret));
	free(copy);
	return ret;
}

/* path with its folder resolved (the file itself may not exist yet) */
static char *resolved(const char *path)
{
	char *dcopy = strdup(path), *bcopy = strdup(path), *dir, *out = NULL;

	if (dcopy && bcopy) {
		dir = realpath(dirname(dcopy), NULL);
		if (dir && asprintf(&out, "%s/%s", dir, basename(bcopy)) < 0)
			out = NULL;
		free(dir);
	}
	free(dcopy);
	free(bcopy);
	return out;
}

bool output_same(const char *a, const char *b)
{
	char *ra = resolved(a), *rb = resolved(b);
	bool same = ra && rb ? !strcmp(ra, rb) : !strcmp(a, b);

	free(ra);
	free(rb);
	return same;
}

/*
 * A temporary name next to path: path.tmp.<pid>.<n>, or, where that is
 * longer than the file system takes a name (a valid name of 250 bytes),
 * .etdump-bpf.tmp.<pid>.<n> in its folder. -ENOMEM.
 */
static int temp_name(const char *path, unsigned int n, char **tmp)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	int dir_len = (int)(base - path), len;

	len = asprintf(tmp, "%s.tmp.%d.%u", path, (int)getpid(), n);
	if (len >= 0 && len - dir_len > NAME_MAX) {
		free(*tmp);
		len = asprintf(tmp, "%.*s.etdump-bpf.tmp.%d.%u", dir_len, path,
			       (int)getpid(), n);
	}
	if (len < 0) {
		*tmp = NULL;
		return -ENOMEM;
	}
	return 0;
}

/* A new file next to path (temp_name()), mode 0666 & ~umask. */
static int create_temp(const char *path, char **tmp)
{
	int fd = -EEXIST;
	unsigned int n;

	for (n = 0; n < 100 && fd == -EEXIST; n++) {
		if (temp_name(path, n, tmp))
			return -ENOMEM;
		fd = open(*tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd < 0) {
			fd = -errno;
			free(*tmp);
			*tmp = NULL;
		}
	}
	return fd;
}

/*
 * A file with no name yet in path's folder (O_TMPFILE): a writer killed
 * before link_unnamed() leaves nothing behind. Negative errno; the file
 * systems without it (-EOPNOTSUPP, -EISDIR on old kernels) get a name.
 */
static int create_unnamed(const char *path)
{
	char *copy = strdup(path);
	int fd;

	if (!copy)
		return -ENOMEM;
	fd = open(dirname(copy), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
	if (fd < 0)
		fd = -errno;
	free(copy);
	return fd;
}

/* Give the unnamed file at fd the name dst, never replacing one there. */
static int link_unnamed(int fd, const char *dst)
{
	char proc[64];

	/* AT_EMPTY_PATH needs CAP_DAC_READ_SEARCH; /proc needs /proc */
	if (!linkat(fd, "", AT_FDCWD, dst, AT_EMPTY_PATH))
		return 0;
	if (errno != ENOENT && errno != EPERM)
		return -errno;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	return linkat(AT_FDCWD, proc, AT_FDCWD, dst, AT_SYMLINK_FOLLOW) ?
	       -errno : 0;
}

/* The unnamed file at fd under a temporary name next to path, in *tmp. */
static int link_temp(int fd, const char *path, char **tmp)
{
	unsigned int n;
	int err = -EEXIST;

	for (n = 0; n < 100 && err == -EEXIST; n++) {
		if (temp_name(path, n, tmp))
			return -ENOMEM;
		err = link_unnamed(fd, *tmp);
		if (err) {
			free(*tmp);
			*tmp = NULL;
		}
	}
	return err;
}

/* Whether a file can be created next to path: made, then removed. */
static int can_create(const char *path)
{
	char *tmp;
	int fd;

	fd = create_temp(path, &tmp);
	if (fd < 0)
		return fd;
	close(fd);
	unlink(tmp);
	free(tmp);
	return 0;
}

/*
 * A device or FIFO (/dev/full, /dev/stdout) cannot be replaced: a rename
 * would put a regular file where the device node was. Write into it, never
 * through a symbolic link planted meanwhile.
 */
static int write_special(const char *path, file_write_fn fn, void *ctx)
{
	int fd, err;

	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	err = fn(ctx, fd, false);
	if (close(fd) && !err)
		err = -errno;
	return err;
}

/*
 * What is at path now decides, never what output_check() saw when the work
 * started: a symbolic link is never written through (-ELOOP), a file that
 * appeared meanwhile is replaced only with force (-EEXIST). Either way the
 * data stays in the temporary file, named in *kept.
 */
struct buf_source {
	const void *buf;
	size_t len;
};

static int write_buf(void *ctx, int fd, bool regular)
{
	struct buf_source *b = ctx;

	/* synced after: the page cache would only hold it on its way */
	return regular ? direct_write_all(fd, b->buf, b->len) :
			 write_all(fd, b->buf, b->len);
}

int file_replace(const char *path, const void *buf, size_t len, bool force,
		 char **kept)
{
	struct buf_source b = { buf, len };

	return file_replace_with(path, write_buf, &b, force, kept);
}

int file_name_unnamed(int fd, const char *path, bool force, char **kept)
{
	char *tmp = NULL;
	struct stat st;
	int err = 0;

	*kept = NULL;
	if (fsync(fd))
		err = -errno;
	if (!err && !lstat(path, &st) && S_ISLNK(st.st_mode))
		err = -ELOOP;
	else if (!err && !force)
		err = link_unnamed(fd, path);
	else if (!err && !(err = link_temp(fd, path, &tmp)) &&
		 rename(tmp, path))
		err = -errno;
	/* kept as the named path does: under a temporary name */
	if ((err == -ELOOP || err == -EEXIST) && (tmp ||
	    !link_temp(fd, path, &tmp))) {
		*kept = tmp;
		tmp = NULL;
	} else if (err && tmp) {
		unlink(tmp);
	}
	free(tmp);
	return err;
}

bool file_is_special(const char *path)
{
	struct stat st;

	return !lstat(path, &st) && !S_ISLNK(st.st_mode) &&
	       !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

/*
 * The data in a file with no name until it is whole: linked at path (never
 * replacing), or with force under a temporary name moved over it. -ENOSYS
 * when the file system makes no unnamed files.
 */
static int replace_unnamed(const char *path, file_write_fn fn, void *ctx,
			   bool force, char **kept)
{
	int fd, err;

	fd = create_unnamed(path);
	if (fd == -EOPNOTSUPP || fd == -EISDIR || fd == -EINVAL)
		return -ENOSYS;
	if (fd < 0)
		return fd;
	err = fn(ctx, fd, true);
	if (!err)
		err = file_name_unnamed(fd, path, force, kept);
	if (close(fd) && !err)
		err = -errno;
	return err;
}

int file_replace_with(const char *path, file_write_fn fn, void *ctx,
		      bool force, char **kept)
{
	char *tmp = NULL;
	struct stat st;
	int fd, err;

	*kept = NULL;
	if (file_is_special(path))
		return write_special(path, fn, ctx);
	err = replace_unnamed(path, fn, ctx, force, kept);
	if (err != -ENOSYS)
		return err;
	fd = create_temp(path, &tmp);
	if (fd < 0)
		return fd;
	err = fn(ctx, fd, true);
	if (!err && fsync(fd))
		err = -errno;
	if (close(fd) && !err)
		err = -errno;
	if (!err && !lstat(path, &st) && S_ISLNK(st.st_mode))
		err = -ELOOP;
	/* link() never replaces: what appeared since the check stays */
	else if (!err && (force ? rename(tmp, path) : link(tmp, path)))
		err = -errno;
	if (err == -ELOOP || err == -EEXIST) {
		*kept = tmp;
		return err;
	}
	if (err || !force)
		unlink(tmp);
	free(tmp);
	return err;
}

void output_error(const char *path, int err, const char *kept)
{
	if (kept)
		p_err("%s: cannot write: %s; the output is in %s", path,
		      file_error(err), kept);
	else
		p_err("%s: cannot write: %s", path, file_error(err));
}

int file_open_regular(const char *path)
{
	struct stat st;
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st))
		err = -errno;
	else if (S_ISREG(st.st_mode))
		return fd;
	else
		err = S_ISDIR(st.st_mode) ? -EISDIR : -ENOTREGULAR;
	close(fd);
	return err;
}

const char *file_error(int err)
{
	switch (-err) {
	case ENOTREGULAR:
		return "not a regular file (a device or FIFO is never read)";
	case ELOOP:
		return "is a symbolic link, never written through";
	case EEXIST:
		return "appeared while the work ran (use --force to replace it)";
	case ENOTTY:
		return "standard input is a terminal (pipe a file into it)";
	case E2BIG:
		/* FlatBuffers' offsets are 32-bit: a recording of minutes */
		return "more than the 2 GiB a FlatBuffers file holds (a run that large, or -o -: record --rotate SIZE writes a recording in parts)";
	default:
		return strerror(-err);
	}
}

int file_series_name(const char *output, unsigned int n, char *buf, size_t len)
{
	const char *base = strrchr(output, '/');
	const char *dot;
	int w;

	base = base ? base + 1 : output;
	dot = strrchr(base, '.');
	/* a leading dot names a hidden file, not an extension */
	if (!dot || dot == base)
		w = snprintf(buf, len, "%s.%04u", output, n);
	else
		w = snprintf(buf, len, "%.*s.%04u%s", (int)(dot - output),
			     output, n, dot);
	return w < 0 || (size_t)w >= len ? -ENAMETOOLONG : 0;
}
