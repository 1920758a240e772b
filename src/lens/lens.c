/* lens.c - see lens.h: the registry (a linker section every lens file adds
 * one pointer to) and the set of lenses one run uses. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../machine/virt.h"
#include "lens.h"

/* The linker makes these for a section named like a C identifier. */
extern const struct lens_def *const __start_themis_lenses[];
extern const struct lens_def *const __stop_themis_lenses[];

static int by_order(const void *a, const void *b)
{
	const struct lens_def *x = *(const struct lens_def *const *)a,
			      *y = *(const struct lens_def *const *)b;
	return x->order != y->order ? (x->order < y->order ? -1 : 1) : strcmp(x->name, y->name);
}

int lens_registry(const struct lens_def **defs, int max)
{
	int n = 0;
	for (const struct lens_def *const *p = __start_themis_lenses;
	     p < __stop_themis_lenses && n < max; p++)
		defs[n++] = *p;
	qsort(defs, (size_t)n, sizeof(*defs), by_order);
	return n;
}

const struct lens_def *lens_by_name(const char *name)
{
	for (const struct lens_def *const *p = __start_themis_lenses; p < __stop_themis_lenses; p++)
		if (!strcmp((*p)->name, name))
			return *p;
	return NULL;
}

void lens_names(char *out, size_t cap)
{
	const struct lens_def *defs[LENS_MAX];
	int n = lens_registry(defs, LENS_MAX);
	size_t used = 0;
	out[0] = 0;
	for (int i = 0; i < n && used < cap; i++)
		if (!defs[i]->always)
			used += (size_t)snprintf(out + used, cap - used, "%s%s", used ? ", " : "",
						 defs[i]->name);
}

const struct lens_opt *lens_option(const char *name, const struct lens_def **owner)
{
	for (const struct lens_def *const *p = __start_themis_lenses; p < __stop_themis_lenses; p++)
		for (const struct lens_opt *o = (*p)->opts; o && o->name; o++)
			if (!strcmp(o->name, name)) {
				if (owner)
					*owner = *p;
				return o;
			}
	return NULL;
}

void lens_trace_write(const struct check_machine *m, FILE *f)
{
	const struct lens_def *defs[LENS_MAX];
	int n = lens_registry(defs, LENS_MAX);
	for (int i = 0; i < n; i++)
		if (defs[i]->trace_write)
			defs[i]->trace_write(m, f);
}

void lens_all_off(struct check_machine *m)
{
	for (const struct lens_def *const *p = __start_themis_lenses; p < __stop_themis_lenses; p++)
		if ((*p)->off)
			(*p)->off(m);
}

int lens_trace_parse(struct check_machine *m, const char *line, char *why, size_t whylen)
{
	for (const struct lens_def *const *p = __start_themis_lenses; p < __stop_themis_lenses;
	     p++) {
		int rc = (*p)->trace_parse ? (*p)->trace_parse(m, line, why, whylen) : 0;
		if (rc)
			return rc;
	}
	return 0;
}

bool lens_number(const char *text, unsigned long long min, unsigned long long max,
		 unsigned long long *u)
{
	char *end;
	errno = 0;
	*u = strtoull(text, &end, 10);
	return *text && !*end && strspn(text, "0123456789") == strlen(text) && !errno &&
	       *u >= min && *u <= max;
}

int lens_trace_number(const char *line, const char *word, unsigned long long min,
		      unsigned long long max, unsigned long long *u, char *why, size_t whylen)
{
	size_t n = strlen(word);
	if (strncmp(line, word, n) || line[n] != ' ')
		return 0;
	if (!lens_number(line + n + 1, min, max, u)) {
		snprintf(why, whylen, "%s needs a whole number from %llu to %llu", word, min, max);
		return -1;
	}
	return 1;
}

bool lens_listed(const char *names, const char *name)
{
	size_t len = strlen(name);
	for (const char *p = names; p && *p;) {
		size_t n = strcspn(p, ",");
		if (n == len && !strncmp(p, name, n))
			return true;
		p += n + (p[n] == ',');
	}
	return false;
}

/* Every name of the list is a lens that can be asked for: 0, or -1 with err. */
static int check_names(const char *names, char *err, size_t errlen)
{
	for (const char *p = names; p && *p;) {
		size_t n = strcspn(p, ",");
		char name[32];
		snprintf(name, sizeof(name), "%.*s", (int)n, p);
		const struct lens_def *d = lens_by_name(name);
		if (!d || d->always) {
			char known[256];
			lens_names(known, sizeof(known));
			snprintf(err, errlen, "unknown lens '%s' (known: %s)", name, known);
			return -1;
		}
		p += n + (p[n] == ',');
	}
	return 0;
}

int lens_set_open(struct lens_set *ls, const char *names, const struct check_config *cfg,
		  const struct check_machine *m, char *err, size_t errlen)
{
	const struct lens_def *defs[LENS_MAX];
	memset(ls, 0, sizeof(*ls));
	if (check_names(names, err, errlen))
		return -1;
	int n = lens_registry(defs, LENS_MAX);
	for (int i = 0; i < n; i++) {
		const struct lens_def *d = defs[i];
		if (!d->always && !lens_listed(names, d->name))
			continue;
		if (ls->words + d->words > LENS_WORDS_MAX) {
			snprintf(err, errlen, "lens %s: more than %d words in all", d->name,
				 LENS_WORDS_MAX);
			lens_set_close(ls);
			return -1;
		}
		void *st = d->state_size ? calloc(1, d->state_size) : NULL;
		if (d->state_size && !st) {
			snprintf(err, errlen, "lens %s: out of memory", d->name);
			lens_set_close(ls);
			return -1;
		}
		ls->def[ls->n] = d;
		ls->state[ls->n] = st;
		ls->offset[ls->n] = ls->words;
		ls->n++;
		ls->words += d->words;
		if (d->attach && d->attach(st, cfg, m, err, errlen)) {
			lens_set_close(ls);
			return -1;
		}
	}
	return 0;
}

void lens_set_close(struct lens_set *ls)
{
	for (int i = 0; i < ls->n; i++) {
		if (ls->def[i]->detach)
			ls->def[i]->detach(ls->state[i]);
		free(ls->state[i]);
	}
	memset(ls, 0, sizeof(*ls));
}

void lens_set_kinds(const struct lens_set *ls, char *out)
{
	for (int i = 0; i < ls->n; i++) {
		char *k = out + ls->offset[i];
		if (ls->def[i]->kinds)
			ls->def[i]->kinds(k);
		else
			memset(k, 's', ls->def[i]->words);
	}
	out[ls->words] = 0;
}

void lens_set_before(const struct lens_set *ls, struct virt *v, const struct op *op)
{
	for (int i = 0; i < ls->n; i++)
		if (ls->def[i]->before)
			ls->def[i]->before(ls->state[i], v, op);
}

int lens_set_after(const struct lens_set *ls, uint64_t *words, struct virt *v,
		   const struct check_machine *m, const struct op *op,
		   const struct check_step *parent, struct check_step *s, char *why, size_t whylen,
		   char *sig, size_t siglen)
{
	int rc = 0;
	for (int i = 0; i < ls->n && rc == 0; i++) {
		struct lens_out out = {why, sig, whylen, siglen};
		if (!ls->def[i]->after)
			continue;
		virt_phase(v, ls->def[i]->phase, v->tag);
		rc = ls->def[i]->after(ls->state[i], words + ls->offset[i], v, m, op, parent, s,
				       &out);
	}
	return rc;
}

void lens_set_notes(const struct lens_set *ls, char *notes, size_t noteslen)
{
	size_t used = 0;
	notes[0] = 0;
	for (int i = 0; i < ls->n && used < noteslen; i++) {
		char note[LENS_NOTE_MAX] = "";
		if (ls->def[i]->note)
			ls->def[i]->note(ls->state[i], note, sizeof(note));
		if (note[0])
			used += (size_t)snprintf(notes + used, noteslen - used, "%s%s",
						 used ? " | " : "", note);
	}
}

void lens_set_report(const struct lens_set *ls, const uint64_t *words, FILE *f, bool json)
{
	bool first = true;
	if (json)
		fprintf(f, "{");
	for (int i = 0; i < ls->n; i++) {
		if (!ls->def[i]->report)
			continue;
		if (json)
			fprintf(f, "%s\n    \"%s\": ", first ? "" : ",", ls->def[i]->name);
		ls->def[i]->report(ls->state[i], words + ls->offset[i], f, json);
		first = false;
	}
	if (json)
		fprintf(f, "\n  }");
}

void lens_merge_words(uint64_t *into, const uint64_t *from, const char *kinds, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		switch (kinds[i]) {
		case 'm': into[i] = from[i] > into[i] ? from[i] : into[i]; break;
		case 'o': into[i] |= from[i]; break;
		default: into[i] += from[i]; break;
		}
}
