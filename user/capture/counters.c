// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <bpf/libbpf.h>
#include "capture/counters.h"
#include "lib/log.h"

static const struct {
	const char *name;
	uint8_t kind;
	uint32_t type;
	uint64_t config;
} known[] = {
	{ "cycles", ETDUMP_CTR_PERF, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions", ETDUMP_CTR_PERF, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ "cache-references", ETDUMP_CTR_PERF, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES },
	{ "cache-misses", ETDUMP_CTR_PERF, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
	{ "branches", ETDUMP_CTR_PERF, PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-instructions", ETDUMP_CTR_PERF, PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-misses", ETDUMP_CTR_PERF, PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
	{ "bus-cycles", ETDUMP_CTR_PERF, PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES },
	{ "cpu-clock", ETDUMP_CTR_PERF, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
	/* the kernel keeps these per thread: exact whatever the scheduler does */
	{ "task-clock", ETDUMP_CTR_TASK_CLOCK, 0, 0 },
	{ "page-faults", ETDUMP_CTR_PAGE_FAULTS, 0, 0 },
	{ "faults", ETDUMP_CTR_PAGE_FAULTS, 0, 0 },
	{ "minor-faults", ETDUMP_CTR_MINOR_FAULTS, 0, 0 },
	{ "major-faults", ETDUMP_CTR_MAJOR_FAULTS, 0, 0 },
	{ "context-switches", ETDUMP_CTR_CONTEXT_SWITCHES, 0, 0 },
	{ "cs", ETDUMP_CTR_CONTEXT_SWITCHES, 0, 0 },
	{ "cpu-migrations", ETDUMP_CTR_MIGRATIONS, 0, 0 },
	{ "migrations", ETDUMP_CTR_MIGRATIONS, 0, 0 },
};

static const char *const software_defaults[] = {
	"task-clock", "page-faults", "context-switches",
};

/* perf's raw event syntax: r followed by hex digits */
static bool parse_raw(const char *name, uint64_t *config)
{
	char *end;

	if (name[0] != 'r' || !name[1] || strlen(name) > 17)
		return false;
	errno = 0;
	*config = strtoull(name + 1, &end, 16);
	return !errno && !*end && name[1] != '-' && name[1] != '+';
}

static int add_counter(struct counter_set *set, const char *name, size_t len,
		       char *err, size_t errlen)
{
	struct counter_spec *s;
	char buf[32];
	size_t i;

	if (!len || len >= sizeof(buf)) {
		snprintf(err, errlen, "invalid counter name '%.*s'", (int)len, name);
		return -EINVAL;
	}
	memcpy(buf, name, len);
	buf[len] = '\0';
	for (i = 0; i < set->n; i++) {
		if (!strcmp(set->spec[i].name, buf)) {
			snprintf(err, errlen, "counter '%s' given twice", buf);
			return -EINVAL;
		}
	}
	if (set->n == ETDUMP_MAX_COUNTERS) {
		snprintf(err, errlen, "at most %d counters", ETDUMP_MAX_COUNTERS);
		return -E2BIG;
	}
	s = &set->spec[set->n];
	memset(s, 0, sizeof(*s));
	snprintf(s->name, sizeof(s->name), "%s", buf);
	for (i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
		if (!strcmp(known[i].name, buf)) {
			s->kind = known[i].kind;
			s->type = known[i].type;
			s->config = known[i].config;
			set->n++;
			return 0;
		}
	}
	if (parse_raw(buf, &s->config)) {
		s->kind = ETDUMP_CTR_PERF;
		s->type = PERF_TYPE_RAW;
		set->n++;
		return 0;
	}
	snprintf(err, errlen,
		 "unknown counter '%s' (perf names: cycles, instructions, cache-misses, branch-misses, task-clock, page-faults, context-switches, cpu-migrations, ... or rNNNN)",
		 buf);
	return -EINVAL;
}

int counters_parse(const char *list, struct counter_set *set, char *err,
		   size_t errlen)
{
	const char *p = list, *comma;
	int ret;

	memset(set, 0, sizeof(*set));
	for (;;) {
		comma = strchrnul(p, ',');
		ret = add_counter(set, p, comma - p, err, errlen);
		if (ret)
			return ret;
		if (!*comma)
			return 0;
		p = comma + 1;
	}
}

void counters_default(struct counter_set *set)
{
	char err[128];

	counters_parse("cycles,instructions", set, err, sizeof(err));
}

static int perf_open(const struct counter_spec *s, int cpu)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = s->type,
		.config = s->config,
		.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
			       PERF_FORMAT_TOTAL_TIME_RUNNING,
	};

	return syscall(SYS_perf_event_open, &attr, -1, cpu, -1,
		       PERF_FLAG_FD_CLOEXEC);
}

/* Open counter i on every CPU; -errno of the first CPU that refused. */
static int open_one(struct counter_set *set, uint32_t i)
{
	int cpu, fd, *fds = &set->fds[i * set->ncpus];

	for (cpu = 0; cpu < set->ncpus; cpu++)
		fds[cpu] = -1;
	if (set->spec[i].kind != ETDUMP_CTR_PERF)
		return 0;
	for (cpu = 0; cpu < set->ncpus; cpu++) {
		fd = perf_open(&set->spec[i], cpu);
		/* an offline CPU runs nothing of ours: leave its slot empty */
		if (fd < 0 && errno == ENODEV && cpu > 0)
			continue;
		if (fd < 0)
			return -errno;
		fds[cpu] = fd;
	}
	return 0;
}

static void close_one(struct counter_set *set, uint32_t i)
{
	int cpu;

	for (cpu = 0; cpu < set->ncpus; cpu++) {
		if (set->fds[i * set->ncpus + cpu] >= 0)
			close(set->fds[i * set->ncpus + cpu]);
		set->fds[i * set->ncpus + cpu] = -1;
	}
}

/* Drop counter i, keeping the others (and their fds) in order. */
static void remove_one(struct counter_set *set, uint32_t i)
{
	close_one(set, i);
	memmove(&set->spec[i], &set->spec[i + 1],
		(set->n - i - 1) * sizeof(set->spec[0]));
	memmove(&set->fds[i * set->ncpus], &set->fds[(i + 1) * set->ncpus],
		(set->n - i - 1) * set->ncpus * sizeof(int));
	set->n--;
}

static bool not_supported(int err)
{
	return err == -ENOENT || err == -EOPNOTSUPP || err == -ENODEV ||
	       err == -EINVAL;
}

/* The one line that says which counters were chosen, and why. */
static void describe(const struct counter_set *set, const char *dropped,
		     int err, bool fell_back)
{
	char names[ETDUMP_MAX_COUNTERS * 34] = "";
	size_t off = 0;
	uint32_t i;

	for (i = 0; i < set->n; i++)
		off += snprintf(names + off, sizeof(names) - off, "%s%s",
				i ? ", " : "", set->spec[i].name);
	if (!*dropped) {
		p_info("counters: %s", set->n ? names : "none");
		return;
	}
	p_info("counters: %s (%s not available: perf_event_open: %s%s%s)",
	       set->n ? names : "none", dropped, strerror(-err),
	       err == -ENOENT ? ", no hardware PMU exposed here" : "",
	       fell_back ? "; using software counters instead" : "");
}

/* The counters this machine can count, as -e takes their names. */
static void available(char *buf, size_t len)
{
	struct counter_spec probe = { 0 };
	size_t i, off = 0;
	int fd;

	buf[0] = '\0';
	for (i = 0; i < sizeof(known) / sizeof(known[0]) && off < len; i++) {
		if (known[i].kind == ETDUMP_CTR_PERF) {
			probe.type = known[i].type;
			probe.config = known[i].config;
			fd = perf_open(&probe, 0);
			if (fd < 0)
				continue;
			close(fd);
		}
		off += snprintf(buf + off, len - off, "%s%s", off ? ", " : "",
				known[i].name);
	}
}

int counters_open(struct counter_set *set)
{
	char dropped[256] = "";
	int err, first_err = 0;
	bool fell_back = false;
	uint32_t i = 0, k;
	size_t off = 0;

	set->ncpus = libbpf_num_possible_cpus();
	if (set->ncpus <= 0)
		return set->ncpus ? set->ncpus : -EINVAL;
	set->fds = malloc(ETDUMP_MAX_COUNTERS * set->ncpus * sizeof(int));
	if (!set->fds)
		return -ENOMEM;
	while (i < set->n) {
		err = open_one(set, i);
		if (!err) {
			i++;
			continue;
		}
		if (!not_supported(err)) {
			p_err("counter %s: perf_event_open: %s", set->spec[i].name,
			      strerror(-err));
			return err;
		}
		if (set->required) {
			char avail[512];

			available(avail, sizeof(avail));
			p_err("-e %s: not available here (perf_event_open: %s%s); available: %s",
			      set->spec[i].name, strerror(-err),
			      err == -ENOENT ? ", no hardware PMU exposed" : "",
			      avail);
			return -EOPNOTSUPP;
		}
		if (!first_err)
			first_err = err;
		off += snprintf(dropped + off, sizeof(dropped) - off, "%s%s",
				off ? ", " : "", set->spec[i].name);
		remove_one(set, i);
	}
	if (!set->n && off) {
		fell_back = true;
		for (k = 0; k < sizeof(software_defaults) / sizeof(*software_defaults); k++) {
			char e[128];

			add_counter(set, software_defaults[k],
				    strlen(software_defaults[k]), e, sizeof(e));
			if (open_one(set, set->n - 1))
				remove_one(set, set->n - 1);
		}
	}
	describe(set, dropped, first_err, fell_back);
	return 0;
}

void counters_close(struct counter_set *set)
{
	uint32_t i;

	if (set->fds)
		for (i = 0; i < set->n; i++)
			close_one(set, i);
	free(set->fds);
	set->fds = NULL;
}
