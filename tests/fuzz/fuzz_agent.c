/* fuzz_agent.c - a hostile guest against the host's side of the agent
 * link: the doorbell (src/machine/virt_agent.c), through which the guest
 * hands the host addresses and lengths of its own choosing under page
 * tables of its own making, and the parsers of what the agent says
 * (src/check/step.c: check_parse_reply over "r", "f" and "v" lines, and
 * check_explain_dumps over two dumps' "e" lines). Whatever the guest
 * does, the host must not crash, read or write outside guest RAM, or
 * hang, and what it keeps must stay within its buffers.
 *
 * Build and run from the repository root (make test-fuzz and make fuzz):
 *   make build/asan/fuzz_agent
 *   build/asan/fuzz_agent ROUNDS FIRST-SEED
 *
 * A round, by its seed, either (1) builds a random Sv39/Sv48 page table
 * in a 16 MiB machine (entries that map RAM, MMIO and nothing, valid and
 * not, superpages aligned or not), puts the hart in a random privilege
 * with random SUM/MXR/MPRV bits and makes a run of doorbell calls with
 * random commands, addresses near page and address-space edges, and
 * lengths of every size, a host command pending or not; or (2) mutates a
 * real reply or a pair of real dumps (tests/fuzz/fuzz.h) and parses it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/proto/doorbell.h"
#include "check/check.h"
#include "fuzz.h"
#include "machine/virt_internal.h"

#define FUZZ_MEM (16ULL << 20)
#define PT_BASE	 (VIRT_DRAM_BASE + (8ULL << 20)) /* the page tables, in RAM's upper half */
#define HEX32	 "0123456789abcdef0123456789abcdef"

static const char reply[] = "r 0 0 OK\nr 1 -1 ENOENT\nf 0 " HEX32 "\nf 1 " HEX32 "\n"
			    "v /f0:f /f1:f /d0:d /d0/f2:f\n";
static const char dump_a[] =
    "e 0 / kind=d mode=755 uid=0 gid=0 nlink=3 size=- content=- target=- xattrs=-\n"
    "e 0 /f0 kind=f mode=644 uid=0 gid=0 nlink=1 size=10 content=" HEX32
    " target=- xattrs=- mtime=1700000000.5 ctime=2147483647.0 atime=0.0\n"
    "e 1 / kind=d mode=755 uid=0 gid=0 nlink=3 size=- content=- target=- xattrs=-\n"
    "e 1 /f0 kind=f mode=600 uid=0 gid=0 nlink=1 size=10 content=" HEX32
    " target=- xattrs=- mtime=4294967295.0 ctime=2147483647.0 atime=0.0\n";
static const char *const dict[] = {
    "r ",     "f ",  "v ",     "e 0 ", "e 1 ",
    ":d ",    ":f ", "mtime=", "=",    " ",
    "\n",     HEX32, "-1",     "/",    "ctime=-9223372036854775808.0",
    "atime=", NULL};

/* A page-table entry: a leaf or a pointer, to RAM or anywhere. */
static uint64_t random_pte(uint64_t *rng)
{
	uint64_t ppn = fuzz_below(rng, 4) ? (VIRT_DRAM_BASE >> 12) + fuzz_below(rng, FUZZ_MEM >> 12)
					  : splitmix64(rng) & ((1ULL << 44) - 1);
	if (!fuzz_below(rng, 3))
		ppn = (PT_BASE >> 12) + fuzz_below(rng, 8); /* into the tables */
	uint64_t flags = splitmix64(rng) & 0xff;
	if (fuzz_below(rng, 4))
		flags |= 1; /* mostly valid */
	return ppn << 10 | flags;
}

/* One round of doorbell calls; how many of its log lines got through. */
static int doorbell_round(struct virt *v, uint64_t *rng)
{
	int through = 0;
	for (int t = 0; t < 8; t++) /* 8 table pages of random entries */
		for (int e = 0; e < 512; e++) {
			uint64_t pte = fuzz_below(rng, 3) ? 0 : random_pte(rng);
			if (!ram_write(&v->ram, PT_BASE + (uint64_t)t * 4096 + (uint64_t)e * 8,
				       &pte, 8))
				fuzz_die("cannot write the page tables");
		}
	static const uint64_t modes[] = {0, 8, 9, 10, 15};
	v->cpu.priv = (int)fuzz_below(rng, 4);
	v->cpu.csr.satp = modes[fuzz_below(rng, 5)] << 60 | ((PT_BASE >> 12) + fuzz_below(rng, 8));
	v->cpu.csr.mstatus ^=
	    splitmix64(rng) & (1ULL << 17 | 1ULL << 18 | 1ULL << 19); /* MPRV SUM MXR */
	cpu_flush_tlb(&v->cpu);
	for (int k = 0; k < 16; k++) {
		if (fuzz_below(rng, 4) == 0)
			virt_command(v, fuzz_below(rng, 2) ? "op write /f0 0 4096" : "dump");
		uint64_t cmd = fuzz_below(rng, 6) ? fuzz_below(rng, 5) : splitmix64(rng);
		uint64_t va = fuzz_below(rng, 2) ? fuzz_below(rng, 1ULL << 40)
						 : fuzz_interesting(rng) - fuzz_below(rng, 16);
		if (fuzz_below(rng, 3) == 0)
			va = VIRT_DRAM_BASE + fuzz_below(rng, FUZZ_MEM); /* RAM, if untranslated */
		if (fuzz_below(rng, 3) == 0)
			va = (va & ~0xfffULL) - fuzz_below(rng, 8); /* across a page edge */
		uint64_t len =
		    fuzz_below(rng, 2) ? fuzz_below(rng, 2 * DB_MAX_LEN) : fuzz_interesting(rng);
		uint64_t r = virt_doorbell(v, cmd, va, len);
		if (cmd == DB_PING && r != DB_MAGIC)
			fuzz_die("the doorbell does not answer a ping");
		through += cmd == DB_LOG && r == 0;
	}
	if (!memchr(v->ready_report, 0, sizeof(v->ready_report)))
		fuzz_die("the ready report is not a string");
	virt_clear_log(v);
	v->stop = VIRT_RUNNING;
	return through;
}

static void parse_round(uint64_t *rng, struct fuzz_buf *b, struct fuzz_buf *c)
{
	static const char *const fs[CHECK_MAX_FS] = {"ext4", "xfs", "btrfs", "vfat"};
	struct check_machine m = {.nfs = 1 + (int)fuzz_below(rng, 4)};
	for (int i = 0; i < m.nfs; i++)
		m.fs[i] = fs[i];
	m.time = fuzz_below(rng, 2);
	int nmut = 1 + (int)fuzz_below(rng, 8);
	char why[512], sig[64];
	if (fuzz_below(rng, 2)) {
		struct check_step s = {0};
		fuzz_set(b, reply, sizeof(reply) - 1);
		for (int i = 0; i < nmut; i++)
			fuzz_mutate_text(rng, b, dict);
		b->p[b->n] = 0; /* a log is a string: NULs inside end it early */
		check_parse_reply((const char *)b->p, m.nfs, 1 + (unsigned)fuzz_below(rng, 3), &s,
				  why, sizeof(why));
		if (s.view.nfiles > OP_POOL_MAX || s.view.ndirs > OP_POOL_MAX)
			fuzz_die("the view overflows its pool");
		for (int i = 0; i < s.view.nfiles; i++)
			if (!memchr(s.view.files[i], 0, sizeof(s.view.files[i])))
				fuzz_die("a view name is not a string");
		return;
	}
	fuzz_set(b, dump_a, sizeof(dump_a) - 1);
	fuzz_set(c, dump_a, sizeof(dump_a) - 1);
	for (int i = 0; i < nmut; i++)
		fuzz_mutate_text(rng, fuzz_below(rng, 2) ? b : c, dict);
	b->p[b->n] = 0, c->p[c->n] = 0;
	int x = (int)fuzz_below(rng, (uint64_t)m.nfs), y = (int)fuzz_below(rng, (uint64_t)m.nfs);
	check_explain_dumps(&m, (const char *)b->p, x, (const char *)c->p, y, "state", why,
			    sizeof(why), sig, sizeof(sig));
	if (!memchr(why, 0, sizeof(why)) || !memchr(sig, 0, sizeof(sig)))
		fuzz_die("an explanation is not a string");
}

int main(int argc, char **argv)
{
	uint64_t rounds = 2000, first = 1;
	fuzz_args(argc, argv, "fuzz_agent", &rounds, &first);
	FILE *console = fopen("/dev/null", "w");
	struct virt *v = malloc(sizeof(*v));
	char err[512];
	struct virt_config cfg = {.mem = FUZZ_MEM, .no_boot = true, .console = console};
	if (!console || !v || virt_init(v, &cfg, err, sizeof(err)))
		fuzz_die(v && console ? err : "cannot set up");
	struct fuzz_buf b = {0}, c = {0};
	uint64_t bells = 0, through = 0;
	for (uint64_t r = 0; r < rounds; r++) {
		uint64_t seed = first + r, rng = seed;
		fuzz_round_start(seed);
		if (fuzz_below(&rng, 4) == 0)
			through += (uint64_t)doorbell_round(v, &rng), bells++;
		else
			parse_round(&rng, &b, &c);
	}
	alarm(0);
	/* A harness whose guest never got a line through would test only the
	 * refusals. */
	if (rounds >= 1000 && !through)
		fuzz_die("no doorbell call ever read guest memory: the harness is broken");
	printf("fuzz_agent: %llu rounds from seed %llu (%llu of doorbell calls, %llu log lines "
	       "through; the rest replies and dumps parsed)\n",
	       (unsigned long long)rounds, (unsigned long long)first, (unsigned long long)bells,
	       (unsigned long long)through);
	virt_free(v);
	free(v), free(b.p), free(c.p);
	fclose(console);
	return 0;
}
