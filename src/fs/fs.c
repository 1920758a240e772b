/* fs.c - see fs.h: the registry of descriptors and what is read through
 * it (finding one by name, telling an image's type, the names for help). */
#include <stdio.h>
#include <string.h>

#include "fs.h"

static const struct fs_desc *const all[] = {
#define FS_ENTRY(name) &fs_##name,
    FS_LIST(FS_ENTRY)
#undef FS_ENTRY
};
#define NFS (sizeof(all) / sizeof(all[0]))

size_t fs_count(void)
{
	return NFS;
}

const struct fs_desc *fs_at(size_t i)
{
	return i < NFS ? all[i] : NULL;
}

const struct fs_desc *fs_find(const char *fs)
{
	for (size_t i = 0; fs && i < NFS; i++)
		if (!strcmp(fs, all[i]->name))
			return all[i];
	return NULL;
}

const struct fs_desc *fs_find_or_none(const char *fs)
{
	static const struct fs_desc none = {.name = "?"};
	const struct fs_desc *d = fs_find(fs);
	return d ? d : &none;
}

bool fs_known(const char *fs)
{
	return fs_find(fs) != NULL;
}

/* Whether the space-separated list holds word. */
static bool listed(const char *list, const char *word)
{
	size_t n = strlen(word);
	for (const char *p = list; p && (p = strstr(p, word)); p += n)
		if ((p == list || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
			return true;
	return false;
}

bool fs_mounts(const char *driver, const char *format)
{
	const struct fs_desc *d = fs_find(driver);
	return d && (!strcmp(driver, format) || listed(d->also_mounts, format));
}

const char *fs_names(const char *sep)
{
	static char line[512];
	size_t n = 0;
	line[0] = 0;
	for (size_t i = 0; i < NFS && n < sizeof(line); i++)
		n += (size_t)snprintf(line + n, sizeof(line) - n, "%s%s", i ? sep : "",
				      all[i]->name);
	return line;
}

/* FAT's boot signature and jump could sit in bytes another format leaves
 * unused, so vfat is tried after every format with a magic of its own. */
const char *fs_probe(const uint8_t *b, size_t n)
{
	const struct fs_desc *last = NULL;
	for (size_t i = 0; i < NFS; i++) {
		if (all[i] == &fs_vfat)
			last = all[i];
		else if (all[i]->probe(b, n))
			return all[i]->name;
	}
	return last && last->probe(b, n) ? last->name : NULL;
}

const char *fs_detect(const char *path)
{
	static _Thread_local uint8_t buf[FS_PROBE_BYTES];
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	return fs_probe(buf, n);
}

const char *fs_join(const char *const *argv, int max, char *line, size_t cap)
{
	size_t n = 0;
	line[0] = 0;
	for (int a = 0; a < max && argv[a] && n < cap; a++)
		n += (size_t)snprintf(line + n, cap - n, "%s%s", a ? " " : "", argv[a]);
	return line;
}

int fs_mkfs_command(const struct fs_desc *d, const char *options, const char *image, char *out,
		    size_t cap)
{
	const char *img = strstr(d->mkfs, " IMG");
	if (!img || img[4])
		return -1;
	size_t n = 0;
	for (const char *p = d->mkfs; p < img && n < cap;) {
		const char *var = "$MKFS_UUID";
		if (!strncmp(p, var, strlen(var))) {
			n += (size_t)snprintf(out + n, cap - n, "%s", FS_MKFS_UUID);
			p += strlen(var);
		} else {
			out[n++] = *p++;
		}
	}
	if (n >= cap)
		return -1;
	out[n] = 0;
	bool more = options && options[0];
	n += (size_t)snprintf(out + n, cap - n, "%s%s", more ? " " : "", more ? options : "");
	if (image && n < cap)
		n += (size_t)snprintf(out + n, cap - n, " '%s'", image);
	return n < cap ? 0 : -1;
}
