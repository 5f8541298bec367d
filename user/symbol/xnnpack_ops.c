// SPDX-License-Identifier: BSD-3-Clause
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "symbol/xnnpack_ops.h"

const char *const xnn_func_names[XNN_NFUNCS] = {
	[XNN_INVOKE_RUNTIME] = "xnn_invoke_runtime",
	[XNN_RUN_OPERATOR] = "xnn_run_operator_with_index",
	[XNN_TYPE_STRING_V2] = "xnn_operator_type_to_string_v2",
	[XNN_TYPE_STRING] = "xnn_operator_type_to_string",
	[XNN_UKERNEL_STRING] = "xnn_microkernel_type_to_string",
	[XNN_PROFILING_INFO] = "xnn_get_runtime_profiling_info",
	[XNN_DELETE_RUNTIME] = "xnn_delete_runtime",
	[XNN_DELETE_OPERATOR] = "xnn_delete_operator",
};

/* no function read here is near this long; a symbol saying so is wrong */
#define XNN_FUNC_MAX 8192
/* more operator types than XNNPACK will have: a table that long is not one */
#define XNN_TYPES_MAX 1024

/*
 * What gcc 12 -O2 makes of XNNPACK 92a7ad5's xnn_operator_type_to_string_v2,
 * where the layout shows: op->type at 0xb8; types 40-42 (copy) switch on
 * op->copy.subtype, which is not read here; type 14 (binary elementwise)
 * on op->binary_elementwise.op_type at 0x5c, -1..17 through a table.
 */
static const char v2_head[] =
	"48 89 f8"              /* mov %rdi,%rax */
	"8b bf b8 00 00 00"     /* mov 0xb8(%rdi),%edi: op->type */
	"83 ff 2a 77 ??"        /* cmp $42,%edi; ja */
	"83 ff 27 77 ??"        /* cmp $39,%edi; ja: copy, 40..42 */
	"83 ff 0e 75 ??"        /* cmp $14,%edi; jne */
	"8b 40 5c 83 c0 01"     /* mov 0x5c(%rax),%eax; add $1,%eax */
	"83 f8 12 77 ??"        /* cmp $18,%eax; ja */
	"48 8d 15 T"            /* lea TABLE(%rip),%rdx */
	"48 63 04 82 48 01 d0 ff e0"; /* movslq (%rdx,%rax,4); add; jmp */
/* ... and type 123 (unary elementwise) on op->unary_elementwise.op_type,
   also at 0x5c, -1..25 */
static const char v2_unary[] =
	"83 ff 7b 75 ??"
	"8b 40 5c 83 c0 01"
	"83 f8 1a 77 ??"
	"48 8d 15 T"
	"48 63 04 82 48 01 d0 ff e0";
/* ... and any other type: the table of every type's name */
static const char v2_tail[] = "e9 T";
/* xnn_operator_type_to_string and xnn_microkernel_type_to_string: a jump
   table indexed by the enum, unchecked */
static const char enum_switch[] =
	"48 8d 15 T"            /* lea TABLE(%rip),%rdx */
	"89 ff 48 63 04 ba 48 01 d0 ff e0"; /* mov %edi,%edi; movslq; add; jmp */
/* a case of those: lea STRING(%rip),%rax; ret */
static const char string_case[] = "48 8d 05 T c3";
/* xnn_get_runtime_profiling_info: mov 0xc0(%REG),%edi (op->ukernel.type);
   test %edi,%edi; je (the default gets no suffix) */
static const char ukernel_read[] = "8b ?? c0 00 00 00 85 ff 74 ??";
static const char call_rel32[] = "e8 T";

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower((unsigned char)c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

bool xnn_match(const uint8_t *code, size_t len, uint64_t at,
	       const char *p, uint64_t *rel, size_t *matched)
{
	size_t i = 0;
	int32_t disp;

	while (*p) {
		if (*p == ' ') {
			p++;
		} else if (*p == 'T') {
			if (i + 4 > len)
				return false;
			memcpy(&disp, code + i, 4);
			i += 4;
			if (rel)
				*rel = at + i + (int64_t)disp;
			p++;
		} else if (p[0] == '?' && p[1] == '?') {
			if (i >= len)
				return false;
			i++;
			p += 2;
		} else {
			int hi = hexval(p[0]), lo = p[1] ? hexval(p[1]) : -1;

			if (hi < 0 || lo < 0 || i >= len ||
			    code[i] != (uint8_t)(hi << 4 | lo))
				return false;
			i++;
			p += 2;
		}
	}
	if (matched)
		*matched = i;
	return true;
}

/* The first place from `from` where pattern matches: its offset, or -1. */
static long find(const uint8_t *code, size_t len, size_t from, uint64_t at,
		 const char *p, uint64_t *rel)
{
	size_t i;

	for (i = from; i < len; i++)
		if (xnn_match(code + i, len - i, at + i, p, rel, NULL))
			return (long)i;
	return -1;
}

/* A function's code, whole: NULL with why. */
static uint8_t *read_func(const struct xnn_image *img, enum xnn_func f,
			  char *why, size_t whylen)
{
	uint8_t *code;

	if (!img->addr[f] || !img->size[f] || img->size[f] > XNN_FUNC_MAX) {
		snprintf(why, whylen, "%s %s", xnn_func_names[f],
			 img->addr[f] ? "has no size" : "is not in the symbols");
		return NULL;
	}
	code = malloc(img->size[f]);
	if (code && img->read(img->ctx, img->addr[f], code, img->size[f])) {
		snprintf(why, whylen, "cannot read %s", xnn_func_names[f]);
		free(code);
		return NULL;
	}
	if (!code)
		snprintf(why, whylen, "%s", strerror(ENOMEM));
	return code;
}

/* A name a table may hold: printable, NUL within XNN_NAME_MAX. */
static bool read_string(const struct xnn_image *img, uint64_t at,
			char out[XNN_NAME_MAX])
{
	size_t i;

	memset(out, 0, XNN_NAME_MAX);
	for (i = 0; i < XNN_NAME_MAX; i++) {
		if (img->read(img->ctx, at + i, &out[i], 1))
			break;
		if (!out[i])
			return i > 0;
		if (!isprint((unsigned char)out[i]))
			break;
	}
	memset(out, 0, XNN_NAME_MAX);
	return false;
}

int xnn_read_string_table(const struct xnn_image *img, uint64_t table,
			  uint64_t func, uint64_t size, uint32_t n,
			  uint32_t max, char (**names)[XNN_NAME_MAX])
{
	char (*out)[XNN_NAME_MAX];
	uint8_t code[8];
	uint64_t target, str;
	uint32_t count = n ? n : max, i;
	int32_t entry;

	out = calloc(count ? count : 1, sizeof(*out));
	if (!out)
		return -ENOMEM;
	for (i = 0; i < count; i++) {
		if (img->read(img->ctx, table + 4 * (uint64_t)i, &entry, 4))
			break;
		target = table + (int64_t)entry;
		if (target < func || target >= func + size)
			break;
		if (!img->read(img->ctx, target, code, sizeof(code)) &&
		    xnn_match(code, sizeof(code), target, string_case, &str,
			      NULL))
			read_string(img, str, out[i]);
	}
	/* a table of a known length must be whole */
	if (n && i < n) {
		free(out);
		return -EPROTO;
	}
	*names = out;
	return i;
}

static bool any_named(char (*names)[XNN_NAME_MAX], uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		if (names[i][0])
			return true;
	return false;
}

/* A sub-switch of v2 (type, entries), its table at `table`. */
static int read_sub(struct xnn_subswitch *sub, const struct xnn_image *img,
		    uint32_t type, uint32_t entries, uint64_t table)
{
	int n = xnn_read_string_table(img, table,
				      img->addr[XNN_TYPE_STRING_V2],
				      img->size[XNN_TYPE_STRING_V2], entries,
				      0, &sub->names);

	if (n < 0)
		return n == -ENOMEM ? n : -EPROTO;
	sub->type = type;
	sub->n = n;
	return 0;
}

/* xnn_operator_type_to_string_v2: the fields, the sub-switches' tables. */
static int read_v2(struct xnn_ops *x, const struct xnn_image *img,
		   char *why, size_t whylen)
{
	uint64_t at = img->addr[XNN_TYPE_STRING_V2], table, unary = 0, tail;
	size_t len = img->size[XNN_TYPE_STRING_V2];
	uint8_t *code = read_func(img, XNN_TYPE_STRING_V2, why, whylen);
	int ret = -EPROTO;

	if (!code)
		return -EPROTO;
	if (!xnn_match(code, len, at, v2_head, &table, NULL) ||
	    find(code, len, 0, at, v2_unary, &unary) < 0) {
		snprintf(why, whylen, "xnn_operator_type_to_string_v2 does not read op->type at 0x%x and the binary and unary ops' sub-type at 0x%x",
			 XNN_TYPE_OFF, XNN_SUB_OFF);
	} else if (find(code, len, 0, at, v2_tail, &tail) < 0 ||
		   tail != img->addr[XNN_TYPE_STRING]) {
		snprintf(why, whylen, "xnn_operator_type_to_string_v2 does not end in xnn_operator_type_to_string");
	} else {
		/* binary: op_type -1..17; unary: -1..25 */
		ret = read_sub(&x->sub[0], img, 14, 19, table);
		if (!ret)
			ret = read_sub(&x->sub[1], img, 123, 27, unary);
		if (ret == -EPROTO)
			snprintf(why, whylen, "a table of xnn_operator_type_to_string_v2 is not one of names");
	}
	free(code);
	if (ret)
		return ret;
	x->type_off = XNN_TYPE_OFF;
	x->sub_off = XNN_SUB_OFF;
	x->copy_first = 40;
	x->copy_last = 42;
	return 0;
}

/* A function that is one enum_switch: its table of names. */
static int read_enum(const struct xnn_image *img, enum xnn_func f,
		     char (**names)[XNN_NAME_MAX], uint32_t *n, char *why,
		     size_t whylen)
{
	uint8_t *code = read_func(img, f, why, whylen);
	uint64_t table;
	int ret;

	if (!code)
		return -EPROTO;
	ret = xnn_match(code, img->size[f], img->addr[f], enum_switch, &table,
			NULL) ? 0 : -EPROTO;
	free(code);
	if (!ret)
		ret = xnn_read_string_table(img, table, img->addr[f],
					    img->size[f], 0, XNN_TYPES_MAX,
					    names);
	if (ret >= 0 && !any_named(*names, ret)) {
		free(*names);
		*names = NULL;
		ret = -EPROTO;
	}
	if (ret == -EPROTO)
		snprintf(why, whylen, "%s is not a table of names",
			 xnn_func_names[f]);
	if (ret < 0)
		return ret;
	*n = ret;
	return 0;
}

/* The profiler reads the microkernel type at the offset the probe will. */
static int check_ukernel(const struct xnn_image *img, char *why,
			 size_t whylen)
{
	size_t len = img->size[XNN_PROFILING_INFO], m;
	uint64_t at = img->addr[XNN_PROFILING_INFO], callee;
	uint8_t *code = read_func(img, XNN_PROFILING_INFO, why, whylen);
	long i, j;
	bool ok = false;

	if (!code)
		return -EPROTO;
	for (i = find(code, len, 0, at, ukernel_read, NULL); i >= 0 && !ok;
	     i = find(code, len, i + 1, at, ukernel_read, NULL)) {
		/* mod 10 (disp32), reg %edi, no SIB */
		if ((code[i + 1] & 0xf8) != 0xb8 || (code[i + 1] & 7) == 4)
			continue;
		xnn_match(code + i, len - i, at + i, ukernel_read, NULL, &m);
		/* the type read is what it names, in the next few bytes */
		for (j = i + m; j < i + (long)m + 16 && !ok; j++)
			ok = xnn_match(code + j, len - j, at + j, call_rel32,
				       &callee, NULL) &&
			     callee == img->addr[XNN_UKERNEL_STRING];
	}
	free(code);
	if (!ok)
		snprintf(why, whylen, "xnn_get_runtime_profiling_info does not name op->ukernel.type read at 0x%x",
			 XNN_UKERNEL_OFF);
	return ok ? 0 : -EPROTO;
}

/* Is this x86-64 instruction a conditional jump (emulated by uprobes)? */
static bool is_jcc(const uint8_t *b)
{
	return (b[0] >= 0x70 && b[0] <= 0x7f) ||
	       (b[0] == 0x0f && b[1] >= 0x80 && b[1] <= 0x8f);
}

/* The calls of `callee` in code loaded at `at`: how many, the last's place. */
static int calls_of(const uint8_t *code, size_t len, uint64_t at,
		    uint64_t callee, uint64_t *last)
{
	uint64_t to;
	int calls = 0;
	size_t i;

	for (i = 0; i + 5 <= len; i++) {
		if (xnn_match(code + i, len - i, at + i, call_rel32, &to,
			      NULL) && to == callee) {
			*last = at + i;
			calls++;
		}
	}
	return calls;
}

/* The one call of xnn_run_operator_with_index in the loop, and after it. */
static int find_call(struct xnn_ops *x, const struct xnn_image *img,
		     char *why, size_t whylen)
{
	size_t len = img->size[XNN_INVOKE_RUNTIME];
	uint64_t at = img->addr[XNN_INVOKE_RUNTIME];
	uint8_t *code = read_func(img, XNN_INVOKE_RUNTIME, why, whylen);
	uint8_t after[4];
	int calls;

	if (!code)
		return -EPROTO;
	calls = calls_of(code, len, at, img->addr[XNN_RUN_OPERATOR],
			 &x->call_at);
	free(code);
	if (calls != 1) {
		snprintf(why, whylen, "xnn_invoke_runtime calls xnn_run_operator_with_index %d times, not once",
			 calls);
		return -EPROTO;
	}
	x->exit_at = x->call_at + 5;
	x->exit_stepped = true;
	if (img->read(img->ctx, x->exit_at, after, sizeof(after)))
		return 0;
	/*
	 * the status tested (test %eax,%eax), then a jump on it: the jump
	 * is emulated and nothing but the return comes between
	 */
	if (after[0] == 0x85 && after[1] == 0xc0 && is_jcc(after + 2)) {
		x->exit_at += 2;
		x->exit_stepped = false;
	} else if (is_jcc(after) || after[0] == 0xe9 || after[0] == 0xeb) {
		x->exit_stepped = false;
	}
	return 0;
}

/*
 * Where operators are deleted: xnn_delete_operator, when xnn_delete_runtime
 * calls it (no error otherwise: the fields are then read at every run).
 */
static void find_forget(struct xnn_ops *x, const struct xnn_image *img)
{
	uint64_t callee = img->addr[XNN_DELETE_OPERATOR], unused;
	uint8_t *code;
	char why[128];

	if (!callee)
		return;
	code = read_func(img, XNN_DELETE_RUNTIME, why, sizeof(why));
	if (code && calls_of(code, img->size[XNN_DELETE_RUNTIME],
			     img->addr[XNN_DELETE_RUNTIME], callee, &unused))
		x->forget_at = callee;
	free(code);
}

int xnn_ops_read(struct xnn_ops *x, const struct xnn_image *img,
		 char *why, size_t whylen)
{
	int ret;

	memset(x, 0, sizeof(*x));
	if (!img->addr[XNN_INVOKE_RUNTIME])
		return -ENOENT;
	ret = find_call(x, img, why, whylen);
	if (!ret)
		ret = read_v2(x, img, why, whylen);
	if (!ret)
		ret = read_enum(img, XNN_TYPE_STRING, &x->type_names,
				&x->ntypes, why, whylen);
	if (!ret)
		ret = read_enum(img, XNN_UKERNEL_STRING, &x->ukernel_names,
				&x->nukernels, why, whylen);
	/* the profiler leaves the default out: entry 0 must be it */
	if (!ret && strcmp(x->ukernel_names[0], "Default")) {
		snprintf(why, whylen, "xnn_microkernel_type_to_string's first name is not \"Default\"");
		ret = -EPROTO;
	}
	if (!ret)
		ret = check_ukernel(img, why, whylen);
	if (!ret)
		x->ukernel_off = XNN_UKERNEL_OFF;
	if (!ret)
		find_forget(x, img);
	if (ret)
		xnn_ops_free(x);
	return ret;
}

bool xnn_ops_name(const struct xnn_ops *x, uint32_t type, uint32_t sub,
		  uint32_t ukernel, char *buf, size_t len)
{
	const char *name = NULL;
	size_t i;

	if (type >= x->copy_first && type <= x->copy_last)
		return false;
	for (i = 0; i < 2; i++) {
		/* as the code does: sub-type + 1 in range, else the type's */
		if (x->sub[i].names && type == x->sub[i].type &&
		    sub + 1 < x->sub[i].n) {
			name = x->sub[i].names[sub + 1];
			break;
		}
	}
	if (!name && type < x->ntypes)
		name = x->type_names[type];
	if (!name || !name[0] || ukernel >= x->nukernels ||
	    (ukernel && !x->ukernel_names[ukernel][0]))
		return false;
	if (ukernel)
		snprintf(buf, len, "%s %s", name, x->ukernel_names[ukernel]);
	else
		snprintf(buf, len, "%s", name);
	return true;
}

void xnn_ops_free(struct xnn_ops *x)
{
	free(x->type_names);
	free(x->sub[0].names);
	free(x->sub[1].names);
	free(x->ukernel_names);
	memset(x, 0, sizeof(*x));
}
