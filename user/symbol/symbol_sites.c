// SPDX-License-Identifier: BSD-3-Clause
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "lib/log.h"
#include "symbol/arm64_insn.h"
#include "symbol/arm64_sites.h"
#include "symbol/kernel_registry.h"
#include "symbol/symbol_guard.h"
#include "symbol/symbol_sites.h"
#include "symbol/x86_insn.h"
#include "symbol/xnnpack_sites.h"
#include "target/demangle.h"

/* One object's symbols being matched. */
struct walk {
	struct symbol_sites *out;
	const struct symbol_rules *rules;
	const char *path;
	int fd;                 /* the object, for its entry instructions */
	uint16_t machine;       /* its e_machine: whose uprobes take them */
	struct xnn_found xnn;   /* XNNPACK's functions, to read after */
};

static const uint8_t endbr64[] = { 0xf3, 0x0f, 0x1e, 0xfa };

/* What the uprobes of the object's own architecture make of its entry. */
static bool entry_simulated(uint16_t machine, const uint8_t *b, size_t len)
{
	switch (machine) {
	case EM_X86_64:
		return symbol_entry_emulated(b, len);
	case EM_AARCH64:
		return arm64_uprobe_simulated(b, len);
	default:
		return true;    /* not known here: assume the cheap case */
	}
}

/*
 * Where to attach for a function starting with insn. Builds with
 * -fcf-protection start every function with endbr64, which is
 * single-stepped (~20x a push): attach just after it when what follows is
 * emulated. Nothing jumps there but the function's own entry, and the
 * stack still holds the return address for the uretprobe. Else past a
 * guard, when one comes first (symbol_guard.h).
 */
static size_t attach_skip(uint16_t machine, const uint8_t *insn, size_t len,
			  bool sized, bool *guarded)
{
	size_t skip = 0, guard;

	*guarded = false;
	/* the guard decoder and endbr64 are x86-64's */
	if (machine != EM_X86_64)
		return 0;
	if (len > sizeof(endbr64) && !memcmp(insn, endbr64, sizeof(endbr64)))
		skip = sizeof(endbr64);
	if (symbol_entry_emulated(insn + skip, len - skip))
		return skip;
	/* a function of unknown size: its guard's jump might leave it */
	guard = sized ? symbol_guard_skip(insn + skip, len - skip) : 0;
	*guarded = guard > 0;
	return guard ? skip + guard : 0;
}

/* e_machine of an ELF file (both classes keep it at the same place). */
static uint16_t elf_machine(int fd)
{
	Elf64_Ehdr eh;

	if (fd < 0 || pread(fd, &eh, sizeof(eh), 0) != sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG))
		return EM_NONE;
	return eh.e_machine;
}

static bool seen(const struct walk *w, uint64_t offset)
{
	size_t i;

	for (i = 0; i < w->out->n; i++)
		if (w->out->sites[i].start == offset &&
		    w->out->sites[i].path == w->path)
			return true;
	return false;
}

static int add_site(struct walk *w, char *function, uint64_t offset,
		    uint64_t size, const struct symbol_rule *rule,
		    const char *event)
{
	struct symbol_sites *out = w->out;
	uint8_t insn[SYMBOL_GUARD_BYTES];
	struct symbol_site *s;
	bool guarded = false;
	size_t skip;
	ssize_t n;

	s = symbol_sites_new(out);
	if (!s)
		return -ENOMEM;
	s->path = w->path;
	s->offset = s->start = offset;
	s->size = size;
	s->function = function;
	s->desc.kind = rule->kind;
	s->desc.name_len = strlen(event);
	memcpy(s->desc.name, event, s->desc.name_len);
	if (rule->run) {
		s->desc.arg_len = strlen(rule->run);
		memcpy(s->desc.arg, rule->run, s->desc.arg_len);
	}
	/* no further than the function */
	n = pread(w->fd, insn, size && size < sizeof(insn) ? size :
						     sizeof(insn), offset);
	skip = n > 0 ? attach_skip(w->machine, insn, n, size > 0, &guarded) : 0;
	s->offset += skip;
	s->single_step = n > 0 &&
			 !entry_simulated(w->machine, insn + skip, n - skip);
	s->optimized = n > 0 && w->machine == EM_X86_64 &&
		       symbol_entry_nop5(insn + skip, n - skip);
	s->aarch64 = w->machine == EM_AARCH64;
	if (s->aarch64 && s->single_step)
		arm64_sites_place(s, w->fd, size);
	s->desc.flags = s->single_step ? ETDUMP_FUNC_STEPPED : 0;
	out->single_step += s->single_step;
	p_debug("symbol mode: %s+0x%llx %s -> %s (%s)%s%s%s", w->path,
		(unsigned long long)s->offset, function, event, rule->where,
		guarded ? ", after its guard" : skip ? ", after endbr64" : "",
		s->nexits ? ", exits at its rets" : "",
		s->single_step ? ", single-stepped entry" : "");
	return 0;
}

static int on_symbol(void *ctx, const char *symbol, uint64_t offset,
		     uint64_t size)
{
	struct walk *w = ctx;
	char event[ETDUMP_NAME_MAX];
	char *function;
	int rule, err;

	xnnpack_sites_symbol(&w->xnn, symbol, offset, size);
	/* aliases, and a symbol in both .symtab and .dynsym: one site */
	if (seen(w, offset))
		return 0;
	function = demangle_function(symbol);
	if (!function)
		return errno == ENOMEM ? -ENOMEM : 0;
	rule = symbol_rules_match(w->rules, function, event);
	if (rule == -ENAMETOOLONG)
		p_warn("%s: the event name for %s would be longer than %d bytes; not traced",
		       w->path, function, ETDUMP_NAME_MAX - 1);
	if (rule < 0) {
		free(function);
		return 0;
	}
	err = add_site(w, function, offset, size, &w->rules->rules[rule],
		       event);
	if (err)
		free(function);
	return err;
}

/*
 * The kernels of the object at path named as it registers them
 * (kernel_registry.h): -ENOMEM, else 0.
 */
static int registered_names(struct symbol_sites *out, const char *path)
{
	struct kernel_registry reg;
	struct etdump_func_site *d;
	size_t i;
	int ret = kernel_registry_read(&reg, path);

	for (i = 0; !ret && i < out->n; i++) {
		d = &out->sites[i].desc;
		if (out->sites[i].path != path || d->kind != ETDUMP_FUNC_KERNEL)
			continue;
		d->name[d->name_len] = '\0';
		kernel_registry_name(&reg, d->name, sizeof(d->name));
		d->name_len = strlen(d->name);
	}
	kernel_registry_free(&reg);
	return ret;
}

/*
 * The sites of objects.paths[i] appended (its kernels named as it
 * registers them; its XNNPACK's operators read): its symbols' facts
 * in info. Negative errno with the reason in err.
 */
static int read_object(struct symbol_sites *out,
		       const struct symbol_rules *rules, size_t i,
		       const char *debug_file, struct elf_symbols_info *info,
		       char *err, size_t errlen)
{
	struct walk w = { .out = out, .rules = rules };
	int ret;

	w.path = out->objects.paths[i];
	w.fd = open(w.path, O_RDONLY | O_CLOEXEC);
	w.machine = elf_machine(w.fd);
	ret = elf_symbols_read(w.path, debug_file, on_symbol, &w, info, err,
			       errlen);
	/* x86-64 code: what xnnpack_ops.h decodes */
	if (!ret && (registered_names(out, w.path) ||
		     (w.machine == EM_X86_64 &&
		      xnnpack_sites_add(out, w.path, &w.xnn)))) {
		snprintf(err, errlen, "%s", strerror(ENOMEM));
		ret = -ENOMEM;
	}
	if (w.fd >= 0)
		close(w.fd);
	return ret;
}

int symbol_sites_find(struct symbol_sites *out,
		      const struct symbol_rules *rules, pid_t pid,
		      const char *exe, bool running, const char *debug_file,
		      char *err, size_t errlen)
{
	struct elf_symbols_info info;
	size_t i;
	int ret;

	memset(out, 0, sizeof(*out));
	ret = process_objects(pid, exe, running, &out->objects);
	if (ret) {
		snprintf(err, errlen, "PID %d: cannot list its executable and libraries: %s",
			 (int)pid, strerror(-ret));
		return ret;
	}
	for (i = 0; i < out->objects.n; i++) {
		ret = read_object(out, rules, i, i ? NULL : debug_file, &info,
				  err, errlen);
		if (!i)
			out->exe = info;
		out->functions += info.functions;
		/* a library we cannot read only loses its own functions */
		if (ret && (!i || ret == -ENOMEM))
			return ret;
		if (ret)
			p_debug("symbol mode: %s", err);
	}
	return 0;
}

int symbol_sites_add_object(struct symbol_sites *out,
			    const struct symbol_rules *rules, const char *path,
			    char *err, size_t errlen)
{
	struct elf_symbols_info info;
	size_t first = out->n;
	int ret = path_list_add(&out->objects, path);

	if (ret <= 0) {
		if (ret)
			snprintf(err, errlen, "%s", strerror(-ret));
		return ret;
	}
	ret = read_object(out, rules, out->objects.n - 1, NULL, &info, err,
			  errlen);
	out->functions += info.functions;
	return ret ? ret : (int)(out->n - first);
}
