/* identity.c - see identity.h. The build is the hash of /proc/self/exe:
 * any change to the program, even one that leaves the version alone, is
 * another build (a snapshot holds the hart and devices as this build lays
 * them out; a replay is bit for bit only on the same build). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define XXH_STATIC_LINKING_ONLY /* XXH3_state_t on the stack */
#include <xxhash.h>

#include "identity.h"

#define HASH_HEX 32

bool identity_file_hash(const char *path, uint8_t out[16])
{
	static const size_t bufsize = 1 << 20;
	FILE *f = fopen(path, "rb");
	uint8_t *buf = f ? malloc(bufsize) : NULL;
	if (!buf) {
		if (f)
			fclose(f);
		return false;
	}
	XXH3_state_t st;
	XXH3_INITSTATE(&st);
	XXH3_128bits_reset(&st);
	size_t n;
	while ((n = fread(buf, 1, bufsize, f)) > 0)
		XXH3_128bits_update(&st, buf, n);
	bool ok = !ferror(f);
	XXH128_canonical_t c;
	XXH128_canonicalFromHash(&c, XXH3_128bits_digest(&st));
	memcpy(out, c.digest, 16);
	free(buf);
	fclose(f);
	return ok;
}

static int take_file(struct identity_file *f, const char *path, char *err, size_t errlen)
{
	if (!path)
		return 0;
	if (!identity_file_hash(path, f->hash)) {
		snprintf(err, errlen, "%.900s: cannot read", path);
		return -1;
	}
	f->known = true;
	snprintf(f->path, sizeof(f->path), "%s", path);
	return 0;
}

/* This build's part: its executable cannot change while it runs, so it is
 * hashed once per process (a constant, not state: forks may share it). */
static int take_build(struct identity_file *f, char *err, size_t errlen)
{
	static struct identity_file once;
	if (!once.known && take_file(&once, "/proc/self/exe", err, errlen))
		return -1;
	*f = once;
	f->path[0] = 0; /* where this build lives says nothing */
	return 0;
}

int identity_take(struct identity *id, const char *kernel, const char *initrd,
		  const char *const *images, const char *const *names, int nimages, char *err,
		  size_t errlen)
{
	memset(id, 0, sizeof(*id));
	if (nimages > IDENTITY_MAX_IMAGES) {
		snprintf(err, errlen, "%d disk images, at most %d", nimages, IDENTITY_MAX_IMAGES);
		return -1;
	}
	if (take_build(&id->build, err, errlen) || take_file(&id->kernel, kernel, err, errlen) ||
	    take_file(&id->initrd, initrd, err, errlen))
		return -1;
	for (int i = 0; i < nimages; i++) {
		if (names && names[i])
			snprintf(id->image_names[i], IDENTITY_NAME_MAX, "%s", names[i]);
		else
			snprintf(id->image_names[i], IDENTITY_NAME_MAX, "disk%d", i);
		if (take_file(&id->images[i], images[i], err, errlen))
			return -1;
		id->nimages = i + 1;
	}
	return 0;
}

/* "WHAT [NAME ][PATH ]HASH\n" at out + *n; false when it does not fit. */
static bool put_line(char *out, size_t cap, size_t *n, const char *what, const char *name,
		     const struct identity_file *f, bool with_paths)
{
	if (!f->known)
		return true;
	const char *path = with_paths ? f->path : "";
	if (strchr(path, '\n'))
		return false;
	int k = snprintf(out + *n, cap - *n, "%s %s%s%s%s", what, name ? name : "", name ? " " : "",
			 path, *path ? " " : "");
	if (k < 0 || (size_t)k >= cap - *n)
		return false;
	*n += (size_t)k;
	for (int i = 0; i < 16; i++, *n += 2)
		if (cap - *n < 3 || snprintf(out + *n, 3, "%02x", f->hash[i]) != 2)
			return false;
	if (cap - *n < 2)
		return false;
	out[(*n)++] = '\n';
	out[*n] = 0;
	return true;
}

int identity_to_text(const struct identity *id, bool with_paths, char *out, size_t cap)
{
	size_t n = strnlen(out, cap);
	bool ok = n < cap && put_line(out, cap, &n, "build", NULL, &id->build, false) &&
		  put_line(out, cap, &n, "kernel", NULL, &id->kernel, with_paths) &&
		  put_line(out, cap, &n, "initrd", NULL, &id->initrd, with_paths);
	for (int i = 0; ok && i < id->nimages; i++)
		ok =
		    put_line(out, cap, &n, "image", id->image_names[i], &id->images[i], with_paths);
	return ok ? (int)n : -1;
}

static bool parse_hash(const char *hex, uint8_t out[16])
{
	for (int i = 0; i < 16; i++) {
		unsigned b;
		if (sscanf(hex + 2 * i, "%2x", &b) != 1)
			return false;
		out[i] = (uint8_t)b;
	}
	return strspn(hex, "0123456789abcdef") == HASH_HEX && hex[HASH_HEX] == 0;
}

/* "[PATH ]HASH" into f. */
static int parse_file(struct identity_file *f, const char *rest)
{
	size_t len = strlen(rest);
	if (len < HASH_HEX || f->known)
		return -1;
	const char *hex = rest + len - HASH_HEX;
	size_t plen = len - HASH_HEX;
	if (plen && (plen == 1 || rest[plen - 1] != ' ' || plen - 1 >= IDENTITY_PATH_MAX))
		return -1;
	if (!parse_hash(hex, f->hash))
		return -1;
	memcpy(f->path, rest, plen ? plen - 1 : 0);
	f->path[plen ? plen - 1 : 0] = 0;
	f->known = true;
	return 1;
}

int identity_parse_line(struct identity *id, const char *line)
{
	if (!strncmp(line, "build ", 6))
		return strlen(line + 6) == HASH_HEX ? parse_file(&id->build, line + 6) : -1;
	if (!strncmp(line, "kernel ", 7))
		return parse_file(&id->kernel, line + 7);
	if (!strncmp(line, "initrd ", 7))
		return parse_file(&id->initrd, line + 7);
	if (strncmp(line, "image ", 6))
		return 0;
	const char *name = line + 6, *sp = strchr(name, ' ');
	int k = id->nimages;
	if (!sp || sp == name || (size_t)(sp - name) >= IDENTITY_NAME_MAX ||
	    k == IDENTITY_MAX_IMAGES || parse_file(&id->images[k], sp + 1) != 1)
		return -1;
	memcpy(id->image_names[k], name, (size_t)(sp - name));
	id->image_names[k][sp - name] = 0;
	id->nimages = k + 1;
	return 1;
}

static bool same(const struct identity_file *a, const struct identity_file *b)
{
	return a->known == b->known && (!a->known || !memcmp(a->hash, b->hash, 16));
}

/* Name a part by the file at hand (have's), else by the one recorded. */
static void name_part(char *why, size_t whylen, const char *what, const struct identity_file *want,
		      const struct identity_file *have)
{
	const char *path = have->path[0] ? have->path : want->path;
	if (path[0])
		snprintf(why, whylen, "%s (%.900s)", what, path);
	else
		snprintf(why, whylen, "%s", what);
}

unsigned identity_diff(const struct identity *want, const struct identity *have, unsigned parts,
		       char *why, size_t whylen)
{
	unsigned diff = 0;
	char img[IDENTITY_NAME_MAX + 16];
	why[0] = 0;
	if ((parts & IDENTITY_BUILD) && !same(&want->build, &have->build)) {
		diff |= IDENTITY_BUILD;
		if (!why[0])
			name_part(why, whylen, "the build", &want->build, &have->build);
	}
	if ((parts & IDENTITY_KERNEL) && !same(&want->kernel, &have->kernel)) {
		diff |= IDENTITY_KERNEL;
		if (!why[0])
			name_part(why, whylen, "the kernel", &want->kernel, &have->kernel);
	}
	if ((parts & IDENTITY_INITRD) && !same(&want->initrd, &have->initrd)) {
		diff |= IDENTITY_INITRD;
		if (!why[0])
			name_part(why, whylen, "the initrd", &want->initrd, &have->initrd);
	}
	if (!(parts & IDENTITY_IMAGES))
		return diff;
	if (want->nimages != have->nimages) {
		diff |= IDENTITY_IMAGES;
		if (!why[0])
			snprintf(why, whylen, "the disk count (%d, not %d)", want->nimages,
				 have->nimages);
	}
	for (int i = 0; i < want->nimages && i < have->nimages; i++)
		if (!same(&want->images[i], &have->images[i])) {
			diff |= IDENTITY_IMAGES;
			snprintf(img, sizeof(img), "image %s", want->image_names[i]);
			if (!why[0])
				name_part(why, whylen, img, &want->images[i], &have->images[i]);
		}
	return diff;
}
