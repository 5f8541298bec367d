// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <string.h>
#include "capture/more_targets.h"
#include "lib/log.h"

int more_targets_open(struct more_targets *m, const pid_t *pids, size_t n)
{
	char err[512];
	struct target *t;
	int ret;

	memset(m, 0, sizeof(*m));
	for (; m->n < n; m->n++) {
		t = &m->t[m->n];
		t->pidfd = t->gate_fd = -1;
		m->pids[m->n] = pids[m->n];
		ret = target_open_pid(t, pids[m->n], err, sizeof(err));
		if (!ret)
			ret = probe_objects_find(&m->objs[m->n], t->pid, t->exe,
						 true, err, sizeof(err));
		if (ret) {
			p_err("%s", err);
			m->n++; /* closed with the others */
			return ret;
		}
		if (!m->objs[m->n].etdump) {
			p_err("PID %d (%s): no 'etdump' USDT probes; symbol mode records one process: give it alone to -p",
			      pids[m->n], t->exe);
			m->n++;
			return -ENOENT;
		}
	}
	return 0;
}

bool more_targets_all_have(const struct more_targets *m, const char *probe)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		if (!probe_objects_all_have(&m->objs[i], probe))
			return false;
	return true;
}

int more_targets_attach(struct more_targets *m, struct capture *cap,
			int *nattached)
{
	size_t i;
	int n, err;

	for (i = 0; i < m->n; i++) {
		err = capture_attach_pid(cap, &m->objs[i], m->pids[i], &n);
		if (err)
			return err;
		*nattached += n;
		p_info("attached %d probe(s) to PID %d (%s) too", n, m->pids[i],
		       m->t[i].exe);
	}
	return 0;
}

bool more_targets_exited(struct more_targets *m)
{
	bool all = true;
	size_t i;

	for (i = 0; i < m->n; i++)
		all = target_has_exited(&m->t[i]) && all;
	return all;
}

void more_targets_close(struct more_targets *m)
{
	size_t i;

	for (i = 0; i < m->n; i++) {
		target_close(&m->t[i]);
		probe_objects_free(&m->objs[i]);
	}
	m->n = 0;
}
