// SPDX-License-Identifier: BSD-3-Clause
/*
 * cmd_doctor.c - `etdump-bpf doctor`: what recording needs on this machine
 * (and, given one, in this process or binary), one line each: ok, or what
 * is missing and how to get it. Meant for a device one has just copied the
 * static binary to.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <linux/perf_event.h>
#include <bpf/libbpf.h>
#include "capture/tracefs_leftovers.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/doctor_modes.h"
#include "lib/file_io.h"
#include "lib/log.h"
#include "lib/parse.h"
#include "symbol/symbol_rules.h"
#include "symbol/symbol_sites.h"
#include "target/privileges.h"
#include "target/process_objects.h"
#include "target/usdt_notes.h"

static const char doctor_usage[] =
	"usage: etdump-bpf doctor [-p PID | BINARY]\n"
	"\n"
	"Check what recording needs here: BTF, uprobes, the BPF ring buffer,\n"
	"privileges, perf_event_paranoid, the hardware counters that open,\n"
	"tracefs, uprobe events killed recorders left, lockdown; then record\n"
	"a target of its own in each mode (batched, --precise, counters,\n"
	"--values, --allocations, -p PID, children, symbol mode) and say\n"
	"which work here, which degrade and how; with -p PID or a BINARY,\n"
	"also that it has etdump probes or functions the built-in rules\n"
	"name, and their symbols.\n"
	"Each line says ok, or what is missing and how to fix it.\n"
	"\n"
	"Exit status: 0 recording can work in every mode, 1 something it\n"
	"needs is missing or a mode does not work, 2 usage error.\n";

/* groups of killed recorders listed one a line */
#define MAX_LEFTOVER_LINES 3

enum verdict { OK, NOTE, MISSING };

struct doctor {
	int missing;
	bool privileged;
	int modes, modes_failed;
};

static void say(struct doctor *d, enum verdict v, const char *what,
		const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void say(struct doctor *d, enum verdict v, const char *what,
		const char *fmt, ...)
{
	static const char *const words[] = { "ok", "note", "MISSING" };
	va_list ap;

	printf("  %-8s %-20s ", words[v], what);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	d->missing += v == MISSING;
}

/* The first line of a small /proc or /sys file, or "" when unreadable. */
static bool read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	bool ok = f && fgets(buf, len, f);

	if (f)
		fclose(f);
	if (!ok)
		buf[0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return ok;
}

/* Said, never judged: what the kernel can do is found by trying it. */
static void check_kernel(struct doctor *d)
{
	struct utsname u;

	if (uname(&u))
		say(d, NOTE, "kernel", "unknown (uname: %s)", strerror(errno));
	else
		say(d, OK, "kernel", "Linux %s %s", u.release, u.machine);
}

static void check_btf(struct doctor *d)
{
	if (!access("/sys/kernel/btf/vmlinux", R_OK))
		say(d, OK, "BTF", "/sys/kernel/btf/vmlinux");
	else
		say(d, MISSING, "BTF",
		    "no /sys/kernel/btf/vmlinux: the kernel needs CONFIG_DEBUG_INFO_BTF=y");
}

static void check_uprobes(struct doctor *d)
{
	char type[32];

	if (read_line("/sys/bus/event_source/devices/uprobe/type", type,
		      sizeof(type)))
		say(d, OK, "uprobes", "the uprobe perf event source (type %s)",
		    type);
	else
		say(d, MISSING, "uprobes",
		    "no uprobe event source: the kernel needs CONFIG_UPROBES=y and CONFIG_UPROBE_EVENTS=y");
}

static void check_ring_buffer(struct doctor *d)
{
	int ret;

	if (!d->privileged) {
		say(d, NOTE, "ring buffer",
		    "not checked: loading BPF needs the privileges above");
		return;
	}
	ret = libbpf_probe_bpf_map_type(BPF_MAP_TYPE_RINGBUF, NULL);
	if (ret > 0)
		say(d, OK, "ring buffer", "a BPF ring buffer map can be created");
	else
		say(d, MISSING, "ring buffer",
		    "the kernel refuses BPF ring buffer maps (%s): it needs CONFIG_BPF_SYSCALL=y, 5.8 or later",
		    ret ? strerror(-ret) : "not supported");
}

static void check_privileges(struct doctor *d)
{
	char msg[256];

	d->privileged = !privileges_check_record(msg, sizeof(msg));
	if (d->privileged)
		say(d, OK, "privileges", geteuid() ? "CAP_SYS_ADMIN" :
		    "root");
	else
		say(d, MISSING, "privileges", "%s", msg);
}

static void check_paranoid(struct doctor *d)
{
	char v[32];

	if (!read_line("/proc/sys/kernel/perf_event_paranoid", v, sizeof(v)))
		say(d, NOTE, "perf_event_paranoid",
		    "unreadable (no perf events in this kernel?)");
	else if (d->privileged)
		say(d, OK, "perf_event_paranoid",
		    "%s (does not bind a recorder with CAP_SYS_ADMIN)", v);
	else
		say(d, NOTE, "perf_event_paranoid",
		    "%s: without CAP_SYS_ADMIN, counters need it at 1 or less (sysctl kernel.perf_event_paranoid=1)",
		    v);
}

static int open_hardware(__u64 config)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_HARDWARE,
		.config = config,
		.exclude_kernel = 1,
		.exclude_hv = 1,
	};

	return syscall(SYS_perf_event_open, &attr, 0, -1, -1,
		       PERF_FLAG_FD_CLOEXEC);
}

/*
 * Hardware counters, as record's default cycles,instructions needs: each
 * opened, since a PMU may count some and refuse others (qemu's emulated
 * PMUv3 counts cycles, not instructions).
 */
static void check_pmu(struct doctor *d)
{
	static const struct { const char *name; __u64 config; } events[] = {
		{ "cycles", PERF_COUNT_HW_CPU_CYCLES },
		{ "instructions", PERF_COUNT_HW_INSTRUCTIONS },
		{ "cache-misses", PERF_COUNT_HW_CACHE_MISSES },
		{ "branch-misses", PERF_COUNT_HW_BRANCH_MISSES },
	};
	char opened[96] = "", refused[96] = "";
	int first_errno = 0;
	size_t i;

	for (i = 0; i < sizeof(events) / sizeof(events[0]); i++) {
		int fd = open_hardware(events[i].config);
		char *list = fd >= 0 ? opened : refused;

		if (fd >= 0)
			close(fd);
		else if (!first_errno)
			first_errno = errno;
		snprintf(list + strlen(list), sizeof(opened) - strlen(list),
			 "%s%s", *list ? ", " : "", events[i].name);
	}
	if (opened[0] && !refused[0])
		say(d, OK, "PMU", "hardware counters: %s", opened);
	else if (opened[0])
		say(d, OK, "PMU", "hardware counters: %s (%s refused: %s)",
		    opened, refused, strerror(first_errno));
	else if (first_errno == ENOENT || first_errno == EOPNOTSUPP ||
		 first_errno == ENODEV)
		say(d, NOTE, "PMU",
		    "no hardware counters here (a VM?): record counts task-clock, page-faults, context-switches");
	else
		say(d, NOTE, "PMU", "cycles cannot be opened: %s%s",
		    strerror(first_errno), first_errno == EACCES ||
		    first_errno == EPERM ? " (see perf_event_paranoid)" : "");
}

static void check_tracefs(struct doctor *d)
{
	if (!access("/sys/kernel/tracing/uprobe_events", F_OK))
		say(d, OK, "tracefs", "/sys/kernel/tracing");
	else if (!access("/sys/kernel/debug/tracing/uprobe_events", F_OK))
		say(d, OK, "tracefs", "/sys/kernel/debug/tracing");
	else
		say(d, NOTE, "tracefs",
		    "not mounted (mount -t tracefs nodev /sys/kernel/tracing); needed only on kernels without the uprobe event source");
}

/* Listed, never removed: the next record does that (tracefs_leftovers.h). */
static void check_leftovers(struct doctor *d)
{
	struct tracefs_leftovers l;
	size_t i;
	int err;

	if (!d->privileged) {
		say(d, NOTE, "leftovers",
		    "not checked: reading tracefs needs the privileges above");
		return;
	}
	err = tracefs_leftovers_scan(&l, false);
	if (err) {
		say(d, NOTE, "leftovers", "not checked: %s", err == -EXDEV ?
		    "inside a PID namespace" : strerror(-err));
		return;
	}
	if (!l.n)
		say(d, OK, "leftovers", "no uprobe event of a killed recorder");
	/* a screen still: the first few, then how many more */
	for (i = 0; i < l.n && i < MAX_LEFTOVER_LINES; i++)
		say(d, NOTE, "leftovers",
		    "tracefs group %s: %u uprobe event(s) of a killed recorder (PID %d); the next record removes them",
		    l.v[i].group, l.v[i].events, l.v[i].pid);
	if (l.n > MAX_LEFTOVER_LINES)
		say(d, NOTE, "leftovers", "and %zu more such group(s)",
		    l.n - MAX_LEFTOVER_LINES);
	tracefs_leftovers_free(&l);
}

/* "none [integrity] confidentiality": the bracketed word is the mode. */
static void check_lockdown(struct doctor *d)
{
	char line[128], *open, *close;

	if (!read_line("/sys/kernel/security/lockdown", line, sizeof(line))) {
		say(d, OK, "lockdown", "no lockdown (or securityfs not mounted)");
		return;
	}
	open = strchr(line, '[');
	close = open ? strchr(open, ']') : NULL;
	if (!open || !close) {
		say(d, NOTE, "lockdown", "unknown mode: %s", line);
		return;
	}
	*close = '\0';
	if (!strcmp(open + 1, "confidentiality"))
		say(d, MISSING, "lockdown",
		    "confidentiality: BPF may not read kernel memory; boot with lockdown=integrity or none");
	else
		say(d, OK, "lockdown", "%s", open + 1);
}

/* Android and other SELinux systems: enforcing mode confines bpf(). */
static void check_selinux(struct doctor *d)
{
	char v[8];

	if (!read_line("/sys/fs/selinux/enforce", v, sizeof(v)))
		return;
	if (strcmp(v, "1"))
		say(d, OK, "SELinux", "permissive");
	else
		say(d, NOTE, "SELinux",
		    "enforcing: if bpf() or perf_event_open is denied, 'setenforce 0' (root, a development device)");
}

/* Every mode recorded for real on doctor's own target (doctor_modes.h). */
static void check_modes(struct doctor *d)
{
	struct doctor_mode_result *r;
	char self[PATH_MAX], err[256];
	ssize_t len;
	int i, n = 0;

	if (!d->privileged) {
		say(d, NOTE, "modes",
		    "not checked: recording needs the privileges above");
		return;
	}
	len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (len <= 0) {
		say(d, NOTE, "modes", "not checked: /proc/self/exe: %s",
		    strerror(errno));
		return;
	}
	self[len] = '\0';
	r = doctor_modes_check(self, &n, err, sizeof(err));
	if (!r) {
		say(d, NOTE, "modes", "not checked: %s", err);
		return;
	}
	for (i = 0; i < n; i++) {
		if (r[i].works && r[i].why[0])
			say(d, NOTE, "mode", "%-13s records here, degraded: %s",
			    r[i].name, r[i].why);
		else if (r[i].works)
			say(d, OK, "mode", "%-13s records here (%s)", r[i].name,
			    r[i].what);
		else
			say(d, MISSING, "mode", "%-13s %s", r[i].name,
			    r[i].why);
		d->modes_failed += !r[i].works;
	}
	d->modes = n;
	free(r);
}

static size_t count_probes(const struct path_list *objects)
{
	struct usdt_probe_list list;
	char err[256];
	size_t i, n = 0;

	for (i = 0; i < objects->n; i++) {
		if (usdt_notes_read(objects->paths[i], &list, err, sizeof(err)))
			continue;
		n += usdt_notes_count(&list, "etdump");
		usdt_notes_free(&list);
	}
	return n;
}

/* Probes, or else functions the built-in rules name, and their symbols. */
static void check_target(struct doctor *d, pid_t pid, const char *exe)
{
	struct symbol_rules rules = { 0 };
	struct symbol_sites sites = { 0 };
	struct path_list objects;
	char err[512];
	size_t probes;
	bool stripped;
	int ret;

	ret = process_objects(pid, exe, pid != 0, &objects);
	if (ret) {
		say(d, MISSING, "target", "%s: cannot list its libraries: %s",
		    exe, strerror(-ret));
		return;
	}
	probes = count_probes(&objects);
	path_list_free(&objects);
	if (probes) {
		say(d, OK, "probes", "%zu etdump USDT probes in %s or its libraries",
		    probes, exe);
		return;
	}
	ret = symbol_rules_load_builtin(&rules, err, sizeof(err));
	if (!ret)
		ret = symbol_sites_find(&sites, &rules, pid, exe, pid != 0,
					NULL, err, sizeof(err));
	stripped = !ret && !sites.exe.symtab && !sites.exe.debug_file[0];
	if (ret) {
		say(d, MISSING, "symbols", "no etdump probes, and %s; give its debug file (record --debug-file)",
		    err);
	} else if (!sites.n && stripped) {
		say(d, MISSING, "symbols",
		    "%s: no etdump probes, stripped, and no debug file found%s%s; give it (record --debug-file FILE)",
		    exe, sites.exe.debuglink[0] ? " for its .gnu_debuglink " : "",
		    sites.exe.debuglink);
	} else if (!sites.n) {
		say(d, MISSING, "symbols",
		    "%s: no etdump probes and no function the built-in rules name; write rules (record --rules)",
		    exe);
	} else {
		say(d, OK, "symbols", "no etdump probes; %zu functions the built-in rules name (symbol mode)",
		    sites.n);
		if (sites.exe.debug_file[0])
			say(d, OK, "debug file", "%s", sites.exe.debug_file);
		else if (stripped)
			say(d, NOTE, "debug file",
			    "none found: only exported functions are seen (record --debug-file FILE)");
		else
			say(d, OK, "debug file", "not needed: %s has its .symtab",
			    exe);
	}
	symbol_sites_free(&sites);
	symbol_rules_free(&rules);
}

int cmd_doctor(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		CLI_COMMON_LONGOPTS,
		{},
	};
	struct doctor d = { 0 };
	char exe[PATH_MAX];
	const char *target = NULL;
	int c, fd, pid = 0;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":p:h" CLI_COMMON_SHORTOPTS,
				longopts, NULL)) != -1) {
		if (cli_common_option(c))
			continue;
		switch (c) {
		case 'p':
			if (parse_pid(optarg, &pid))
				return cli_usage_error("doctor", "invalid PID '%s'",
						       optarg);
			break;
		case 'h':
			fputs(doctor_usage, stdout);
			return EXIT_OK;
		default:
			return cli_option_error("doctor", c, argv);
		}
	}
	if (argc - optind > 1 || (pid && optind < argc))
		return cli_usage_error("doctor", "give -p PID or one BINARY, or neither");
	if (optind < argc)
		target = argv[optind];
	if (pid) {
		if (process_exe(pid, exe)) {
			p_err("doctor: no process with PID %d (or it is not ours to read)",
			      pid);
			return EXIT_FAIL;
		}
		target = exe;
	} else if (target) {
		fd = file_open_regular(target);
		if (fd < 0) {
			p_err("doctor: %s: %s", target, fd == -ENOTREGULAR ?
			      "not a regular file" : strerror(-fd));
			return EXIT_FAIL;
		}
		close(fd);
	}

	printf("etdump-bpf doctor: what recording needs on this machine\n");
	check_kernel(&d);
	check_btf(&d);
	check_uprobes(&d);
	check_privileges(&d);
	check_ring_buffer(&d);
	check_paranoid(&d);
	check_pmu(&d);
	check_tracefs(&d);
	check_leftovers(&d);
	check_lockdown(&d);
	check_selinux(&d);
	check_modes(&d);
	if (target)
		check_target(&d, pid, target);
	if (d.missing > d.modes_failed || d.modes_failed == d.modes)
		printf("recording cannot work here: %d thing%s missing (MISSING above)\n",
		       d.missing, d.missing == 1 ? " is" : "s are");
	else if (d.missing)
		printf("recording works here in %d of %d modes (MISSING above)\n",
		       d.modes - d.modes_failed, d.modes);
	else
		printf("recording can work here%s\n",
		       target ? "" : " (name a binary or -p PID to check it too)");
	return d.missing ? EXIT_FAIL : EXIT_OK;
}
