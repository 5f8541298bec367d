// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/syscall.h>
#include "capture/late_followed.h"
#include "lib/log.h"

/* A process watched: its pidfd says when it is gone. */
struct watched {
	pid_t pid;
	int pidfd;
	struct late_libraries *late;
};

struct late_followed {
	struct follow_children *fc;
	late_stock_fn on_stock;
	void *stock_ctx;
	struct watched v[LATE_FOLLOWED_MAX];
	size_t n;
	bool full_said;
};

static bool gone(int pidfd)
{
	struct pollfd pfd = { .fd = pidfd, .events = POLLIN };

	return poll(&pfd, 1, 0) > 0;
}

static void let_go(struct late_followed *lf, size_t i)
{
	late_libraries_close(lf->v[i].late);
	close(lf->v[i].pidfd);
	lf->v[i] = lf->v[--lf->n];
}

/*
 * A process exec'd: watched from now on (what the exec brings is
 * follow_children's), unless it is watched already (its watch sees the
 * new image) or it is gone.
 */
static int on_exec(void *ctx, pid_t pid)
{
	struct late_followed *lf = ctx;
	struct probe_objects none = { 0 };
	struct watched *w;
	size_t i;
	int ret;

	for (i = 0; i < lf->n; i++)
		if (lf->v[i].pid == pid)
			return 0;
	/* room made by those gone since the last look */
	for (i = lf->n; i-- > 0;)
		if (gone(lf->v[i].pidfd))
			let_go(lf, i);
	if (lf->n == LATE_FOLLOWED_MAX) {
		if (!lf->full_said)
			p_warn("PID %d: the libraries it loads later are not looked for (%d followed processes are watched at once)",
			       (int)pid, LATE_FOLLOWED_MAX);
		lf->full_said = true;
		return 0;
	}
	w = &lf->v[lf->n];
	w->pid = pid;
	w->pidfd = syscall(SYS_pidfd_open, pid, 0);
	if (w->pidfd < 0)
		return 0; /* gone already */
	ret = late_libraries_open(&w->late, pid, &none);
	if (ret) {
		close(w->pidfd);
		return ret;
	}
	late_libraries_on_stock(w->late, lf->on_stock, lf->stock_ctx);
	lf->n++;
	return 0;
}

int late_followed_open(struct late_followed **out, struct follow_children *fc,
		       late_stock_fn fn, void *ctx)
{
	struct late_followed *lf = calloc(1, sizeof(*lf));

	*out = lf;
	if (!lf)
		return -ENOMEM;
	lf->fc = fc;
	lf->on_stock = fn;
	lf->stock_ctx = ctx;
	follow_children_on_exec(fc, on_exec, lf);
	return 0;
}

int late_followed_check(struct late_followed *lf, struct capture *cap)
{
	size_t i;
	int err;

	for (i = lf->n; i-- > 0;) {
		if (gone(lf->v[i].pidfd)) {
			let_go(lf, i);
			continue;
		}
		err = late_libraries_check(lf->v[i].late, cap, lf->fc);
		if (err)
			return err;
	}
	return 0;
}

void late_followed_close(struct late_followed *lf)
{
	if (!lf)
		return;
	follow_children_on_exec(lf->fc, NULL, NULL);
	while (lf->n)
		let_go(lf, lf->n - 1);
	free(lf);
}
