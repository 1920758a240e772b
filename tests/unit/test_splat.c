/* tier: fast */
/* test_splat.c - the kernel's reports told apart on the console
 * (src/machine/splat.c), on lines as Linux 6.1 prints them: each kind by
 * its opening line (a KASAN report's "BUG: KASAN:" is kasan, not bug; a
 * task line is a hung task only when it says it is blocked); a report's
 * lines kept from its opening to its end marker and no further; the first
 * report kept, every one counted; a mark forgets them; a flood of lines
 * stays within the log's bounds; a report's site is the first function it
 * names outside the reporting machinery; what a kernel can print, from
 * its System.map (a base kernel no KASAN, lockdep or warning; 6.12's
 * DEBUG_LIST under its own symbol).
 *   build/asan/test_splat [test-name] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "unit.h"
#include "machine/kmap.h"
#include "machine/splat.h"

static struct splat_log l;

static void feed(const char *const *lines)
{
	for (; *lines; lines++)
		splat_line(&l, *lines);
}

static void test_kinds(void)
{
	static const struct {
		const char *line;
		enum splat_kind kind;
	} cases[] = {
	    {"[   12.345678] BUG: KASAN: slab-use-after-free in ext4_xattr_set+0x4c/0x1a0",
	     SPLAT_kasan},
	    {"[    1.000000] UBSAN: array-index-out-of-bounds in fs/jfs/jfs_dmap.c:1607:9",
	     SPLAT_ubsan},
	    {"[    1.000000] WARNING: possible circular locking dependency detected",
	     SPLAT_lockdep},
	    {"[    1.000000] BUG: sleeping function called from invalid context at mm/slab.h:723",
	     SPLAT_atomic},
	    {"[    1.000000] WARNING: CPU: 0 PID: 1 at fs/ext4/inode.c:3611 "
	     "ext4_set_page_dirty+0x4e/0x58",
	     SPLAT_warning},
	    {"[    1.000000] kernel BUG at fs/gfs2/glock.c:1541!", SPLAT_bug},
	    {"[    1.000000] BUG: Bad page state in process init  pfn:8243e", SPLAT_bug},
	    {"[    1.000000] Unable to handle kernel paging request at virtual address "
	     "0000000000000008",
	     SPLAT_oops},
	    {"[  245.000000] INFO: task init:1 blocked for more than 120 seconds.", SPLAT_hung},
	    {"[    1.000000] INFO: task init:1 is doing something else", SPLAT_NONE},
	    {"[    1.000000] rcu: INFO: rcu_sched detected stalls on CPUs/tasks:", SPLAT_rcu},
	    {"[    1.000000] list_del corruption. prev->next should be ffff", SPLAT_list},
	    {"[    1.000000] EXT4-fs (vda): mounted filesystem with ordered data mode", SPLAT_NONE},
	    {"BUG: KFENCE: out-of-bounds read in f2fs_foo+0x10/0x20", SPLAT_kfence},
	    {"", SPLAT_NONE},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (!CHECK(splat_opens(cases[i].line) == cases[i].kind))
			printf("  '%s': got %s\n", cases[i].line,
			       splat_kind_name(splat_opens(cases[i].line)));
	CHECK(!strcmp(splat_kind_name(SPLAT_kasan), "kasan") &&
	      !strcmp(splat_kind_name(SPLAT_NONE), "none") &&
	      !strcmp(splat_kind_name((enum splat_kind)99), "none"));
}

/* A WARN: its lines from "WARNING:" to the end marker, timestamps off,
 * what follows left out. */
static void test_warning_kept(void)
{
	static const char *const lines[] = {
	    "[    5.100000] EXT4-fs (vda): something ordinary",
	    "[    5.200000] ------------[ cut here ]------------",
	    "[    5.200001] WARNING: CPU: 0 PID: 1 at fs/ext4/namei.c:3504 ext4_link+0x5a/0x1c0",
	    "[    5.200002] Call Trace:",
	    "[    5.200003] [<ffffffff80212345>] ext4_link+0x5a/0x1c0",
	    "[    5.200004] ---[ end trace 0000000000000000 ]---",
	    "[    5.300000] after the report",
	    NULL};
	splat_mark(&l);
	feed(lines);
	CHECK(l.opened == 1 && l.kind == SPLAT_warning && l.lines == 4 && !l.open);
	CHECK(!strncmp(l.text, "WARNING: CPU: 0 PID: 1 at fs/ext4/namei.c:3504", 46));
	CHECK(strstr(l.text, "---[ end trace") && !strstr(l.text, "after the report") &&
	      !strstr(l.text, "[    5."));
}

/* KASAN's report sits between rows of '=': the first row before it is
 * not kept, the closing one ends it. A second report is counted, not
 * kept; a mark forgets both. */
static void test_first_kept_mark_forgets(void)
{
	static const char *const lines[] = {
	    "[    1.0] ==================================================================",
	    "[    1.1] BUG: KASAN: use-after-free in jfs_foo+0x1/0x2",
	    "[    1.2] Read of size 8 at addr ffffaf8001234567 by task init/1",
	    "[    1.3] ==================================================================",
	    "[    1.4] UBSAN: shift-out-of-bounds in fs/jfs/jfs_dmap.c:100:2",
	    "[    1.5] shift exponent 64 is too large",
	    NULL};
	splat_mark(&l);
	feed(lines);
	CHECK(l.opened == 2 && l.kind == SPLAT_kasan && l.lines == 3);
	CHECK(!strstr(l.text, "UBSAN") && !strncmp(l.text, "BUG: KASAN: use-after-free", 26));
	splat_mark(&l);
	CHECK(l.opened == 0 && l.kind == SPLAT_NONE && l.len == 0 && !l.text[0]);
	splat_line(&l, "[    2.0] shift exponent 64 is too large"); /* no report open */
	CHECK(l.opened == 0 && l.len == 0);
}

/* An oops is one report from its cause to its stack: the "Oops [#1]"
 * after "Unable to handle kernel ..." goes on with it (counted once), and
 * the frames after it are kept (a reiserfs mount of a flipped leaf, on
 * the 6.12 debug kernel). */
static void test_oops_whole(void)
{
	static const char *const lines[] = {
	    "[ 1273.83] Unable to handle kernel access to user memory without uaccess routines "
	    "at virtual address 0000000000000000",
	    "[ 1273.92] Oops [#1]",
	    "[ 1273.93] CPU: 0 UID: 0 PID: 1 Comm: init Not tainted 6.12.118 #1 ",
	    "[ 1273.94] epc : 0x0",
	    "[ 1274.06] [<ffffffff802857f6>] reiserfs_xattr_init+0x312/0x416",
	    "[ 1274.07] [<ffffffff80268e00>] reiserfs_fill_super+0xd96/0x11fe",
	    NULL};
	splat_mark(&l);
	feed(lines);
	CHECK(l.opened == 1 && l.kind == SPLAT_oops && l.lines == 6 && l.open);
	CHECK(strstr(l.text, "Oops [#1]\n") && strstr(l.text, "reiserfs_xattr_init+0x312/0x416"));
	/* Grouped by the filesystem's frames, which the line tables place
	 * in fs/reiserfs/ (kline annotates them so). */
	char sig[128];
	splat_signature(l.kind,
			"Unable to handle kernel access to user memory at virtual address 0\n"
			"Oops [#1]\n"
			"[<ffffffff8019b8b6>] __lookup_slow+0x0/0x1c4 (fs/namei.c:1780)\n"
			"[<ffffffff802857f6>] reiserfs_xattr_init+0x312/0x416 "
			"(fs/reiserfs/xattr.c:913)\n"
			"[<ffffffff80268e00>] reiserfs_fill_super+0xd96/0x11fe "
			"(fs/reiserfs/super.c:2212)\n",
			sig, sizeof(sig));
	CHECK(!strcmp(sig, "kernel:oops:reiserfs_xattr_init,reiserfs_fill_super"));
}

/* A report that never ends: at most SPLAT_LINES_MAX lines, within the
 * text's bytes, however long each line is. */
static void test_bounded(void)
{
	char line[1024];
	memset(line, 'x', sizeof(line) - 1);
	line[sizeof(line) - 1] = 0;
	splat_mark(&l);
	splat_line(&l, "WARNING: CPU: 0 PID: 1 at fs/x.c:1 f+0x0/0x1");
	for (int i = 0; i < 500; i++)
		splat_line(&l, i % 2 ? line : "short line");
	CHECK(l.lines <= SPLAT_LINES_MAX && l.len < SPLAT_TEXT_MAX && !l.open);
	CHECK(l.len == strlen(l.text) && l.text[l.len - 1] == '\n');
}

/* A report's site: the first function it names that is not the reporting
 * machinery's, as [a-z0-9_]; "" when it names none. */
static void test_site(void)
{
	static const struct {
		const char *const lines[6];
		const char *site;
	} cases[] = {
	    {{"WARNING: CPU: 0 PID: 1 at fs/ext4/namei.c:3556 ext4_link+0x6a/0x7c",
	      "epc : ext4_link+0x6a/0x7c", NULL},
	     "ext4_link"},
	    {{"BUG: KASAN: use-after-free in ext4_xattr_set+0x4c/0x1a0", NULL}, "ext4_xattr_set"},
	    {{"UBSAN: array-index-out-of-bounds in fs/jfs/jfs_dmap.c:1607:9",
	      "index 64 is out of range for type 's8 [64]'",
	      "[<ffffffff8000>] dump_stack_lvl+0x1/0x2",
	      "[<ffffffff8001>] __ubsan_handle_out_of_bounds+0x1/0x2",
	      "[<ffffffff8002>] dbAdjTree+0x50/0x90", NULL},
	     "dbadjtree"},
	    {{"WARNING: possible circular locking dependency detected",
	      "ffffffd8 (&ei->i_data_sem){++++}-{3:3}, at: ext4_map_blocks+0x10/0x20", NULL},
	     "ext4_map_blocks"},
	    {{"kernel BUG at fs/gfs2/glock.c:1541!", "epc : gfs2_glock_nq+0x3e/0x200", NULL},
	     "gfs2_glock_nq"},
	    {{"BUG: Bad page state in process init  pfn:8243e",
	      "page dumped because: nonzero mapcount", NULL},
	     ""},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char site[48];
		splat_mark(&l);
		feed(cases[i].lines);
		splat_site(l.text, site, sizeof(site));
		if (!CHECK(!strcmp(site, cases[i].site)))
			printf("  case %zu: got '%s', want '%s'\n", i, site, cases[i].site);
	}
	char tiny[4];
	splat_mark(&l);
	splat_line(&l, "BUG: KASAN: use-after-free in ext4_xattr_set+0x4c/0x1a0");
	splat_site(l.text, tiny, sizeof(tiny));
	CHECK(!strcmp(tiny, "ext"));
}

/* A signature: the kind, then the first two functions of frames inside a
 * filesystem (a source line under a folder of fs/), each once, in the
 * report's order; without source lines, the site. The lockdep case is a
 * real report's lines (the planted ext4-lock-order, cut). */
static void test_signature(void)
{
	static const struct {
		enum splat_kind kind;
		const char *text, *sig;
	} cases[] = {
	    {SPLAT_lockdep,
	     "WARNING: possible circular locking dependency detected\n"
	     "ffffffff80a15280 (ext4_dirstat_lock){+.+.}-{3:3}, at: ext4_mkdir+0x56/0x2f8 "
	     "(fs/ext4/namei.c:3086)\n"
	     "-> #1 (ext4_subdir_lock){+.+.}-{3:3}:\n"
	     "       __lock_acquire+0xf8a/0x1adc (kernel/locking/lockdep.c:3282)\n"
	     "       ext4_create+0x4e/0x19c (fs/ext4/namei.c:2891)\n"
	     "       lookup_open.isra.0+0x1cc/0x35a (fs/namei.c:3535)\n"
	     "-> #0 (ext4_dirstat_lock){+.+.}-{3:3}:\n"
	     "       ext4_mkdir+0x56/0x2f8 (fs/ext4/namei.c:3086)\n"
	     "       vfs_mkdir+0xaa/0x124 (fs/namei.c:4161)\n",
	     "kernel:lockdep:ext4_mkdir,ext4_create"},
	    /* The VFS (fs/namei.c) and inlined headers are not the filesystem;
	     * jbd2 is (fs/jbd2/); a third one is left out. */
	    {SPLAT_kasan,
	     "BUG: KASAN: slab-use-after-free in ext4_unlink+0xac/0x1a4 "
	     "(fs/ext4/namei.c:3310)\n"
	     "[<ffffffff8000>] kasan_report+0x1/0x2 (mm/kasan/report.c:10)\n"
	     "[<ffffffff8001>] strlen+0x1/0x2 (include/linux/string.h:5)\n"
	     "[<ffffffff8002>] ext4_unlink+0xac/0x1a4 (fs/ext4/namei.c:3310)\n"
	     "[<ffffffff8003>] jbd2_journal_stop+0x1/0x2 (fs/jbd2/transaction.c:1)\n"
	     "[<ffffffff8004>] ext4_evict_inode+0x1/0x2 (fs/ext4/inode.c:1)\n"
	     "[<ffffffff8005>] vfs_unlink+0x1/0x2 (fs/namei.c:4300)\n",
	     "kernel:kasan:ext4_unlink,jbd2_journal_stop"},
	    /* One frame inside a filesystem, the rest the VFS's. */
	    {SPLAT_warning,
	     "WARNING: CPU: 0 PID: 1 at fs/ext4/namei.c:3556 ext4_link+0x6a/0x7c "
	     "(fs/ext4/namei.c:3556)\n"
	     "[<ffffffff8002>] vfs_link+0x1/0x2 (fs/namei.c:4500)\n",
	     "kernel:warning:ext4_link"},
	    /* No source lines (a kernel without line tables): the site. */
	    {SPLAT_warning, "WARNING: CPU: 0 PID: 1 at fs/ext4/namei.c:3556 ext4_link+0x6a/0x7c\n",
	     "kernel:warning:ext4_link"},
	    {SPLAT_bug, "BUG: Bad page state in process init  pfn:8243e\n", "kernel:bug"},
	    /* Not a frame: a path in parentheses after a space that no
	     * function+offset precedes. */
	    {SPLAT_warning, "WARNING: odd (fs/ext4/x.c:1)\n", "kernel:warning"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char sig[64];
		splat_signature(cases[i].kind, cases[i].text, sig, sizeof(sig));
		if (!CHECK(!strcmp(sig, cases[i].sig)))
			printf("  case %zu: got '%s', want '%s'\n", i, sig, cases[i].sig);
	}
	char tiny[24]; /* cut, never past its end */
	splat_signature(cases[0].kind, cases[0].text, tiny, sizeof(tiny));
	CHECK(!strcmp(tiny, "kernel:lockdep:ext4_mkd"));
}

/* The kinds a kernel with these text symbols can print, as a bit mask. */
static unsigned printable(const char *symbols)
{
	char path[] = "/tmp/test_splat_map_XXXXXX", err[256];
	int fd = mkstemp(path);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f)
		return ~0u;
	fputs("ffffffff80000000 T _start\n", f);
	uint64_t a = 0xffffffff80001000ull;
	for (const char *p = symbols; *p; a += 0x100) {
		size_t n = strcspn(p, " ");
		fprintf(f, "%llx T %.*s\n", (unsigned long long)a, (int)n, p);
		p += n + (p[n] == ' ');
	}
	fclose(f);
	struct kmap m;
	unsigned mask = 0;
	if (kmap_load(&m, path, err, sizeof(err)) == 0) {
		for (int k = SPLAT_NONE + 1; k < SPLAT_NKINDS; k++)
			mask |= splat_printable(&m, (enum splat_kind)k) ? 1u << k : 0;
		kmap_free(&m);
	}
	unlink(path);
	return mask;
}

static void test_printable(void)
{
	unsigned base = printable("die __warn ext4_link");
	CHECK(base == 1u << SPLAT_oops);
	unsigned debug61 = printable("lockdep_init report_bug kfence_init __might_resched "
				     "__list_add_valid __ubsan_handle_out_of_bounds");
	CHECK(!(debug61 & 1u << SPLAT_kasan) && debug61 & 1u << SPLAT_lockdep &&
	      debug61 & 1u << SPLAT_warning && debug61 & 1u << SPLAT_bug &&
	      debug61 & 1u << SPLAT_list && debug61 & 1u << SPLAT_ubsan &&
	      debug61 & 1u << SPLAT_kfence && debug61 & 1u << SPLAT_atomic);
	unsigned debug612 = printable("kasan_report __list_add_valid_or_report");
	CHECK(debug612 & 1u << SPLAT_kasan && debug612 & 1u << SPLAT_list &&
	      !(debug612 & 1u << SPLAT_lockdep));
	CHECK(splat_kind_by_name("lockdep") == SPLAT_lockdep &&
	      splat_kind_by_name("frob") == SPLAT_NONE &&
	      !strcmp(splat_kind_config(SPLAT_kasan), "KASAN"));
}

int main(int argc, char **argv)
{
	static const struct unit_test tests[] = {
	    {"kinds", test_kinds},
	    {"warning_kept", test_warning_kept},
	    {"first_kept_mark_forgets", test_first_kept_mark_forgets},
	    {"oops_whole", test_oops_whole},
	    {"bounded", test_bounded},
	    {"site", test_site},
	    {"signature", test_signature},
	    {"printable", test_printable},
	};
	return unit_main("test_splat", tests, sizeof(tests) / sizeof(tests[0]), argc, argv);
}
