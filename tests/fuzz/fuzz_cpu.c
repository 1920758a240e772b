/* fuzz_cpu.c - random bytes as code: the hart must never crash the host,
 * and its two engines must step the same machine.
 *
 * Each round fills RAM with seeded random bytes (so code, page tables and
 * trap vectors are all garbage), points pc, mtvec and stvec into it, enables
 * FP, sometimes turns on Sv39 with a random root and drops to S or U mode,
 * and runs. Built with ASan+UBSan, any out-of-bounds host access, undefined
 * shift or overflow aborts the run. Every round runs twice from the same
 * seed, interpreted and with the translation cache (jit.h): the hart's state
 * and all of RAM must then be equal, byte for byte (random code stores into
 * itself, so this also checks that stale blocks are never run).
 * Usage: fuzz_cpu [rounds] [first-seed]. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/machine/bare.h"

#define FUZZ_RAM   (256u << 10)
#define FUZZ_STEPS 20000

static uint64_t rng_next(uint64_t *s)
{
	uint64_t x = *s;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *s = x;
}

/* RAM's bytes from the seed, staged in buf (FUZZ_RAM bytes) and written
 * at once: word by word, the writes cost a fifth of a round. */
static void fill_random(struct ram *ram, uint64_t *s, uint8_t *buf)
{
	for (uint64_t off = 0; off < FUZZ_RAM; off += 8) {
		uint64_t v = rng_next(s);
		memcpy(buf + off, &v, 8);
	}
	ram_write(ram, ram->base, buf, FUZZ_RAM);
}

static uint64_t ram_addr(uint64_t *s)
{
	return BARE_RAM_BASE + (rng_next(s) % FUZZ_RAM & ~1ULL);
}

static void setup_round(struct bare *m, uint64_t *s, uint8_t *buf)
{
	struct cpu *c = &m->cpu;
	fill_random(&m->ram, s, buf);
	c->pc = ram_addr(s);
	c->csr.mtvec = ram_addr(s) | (rng_next(s) & 1);
	c->csr.stvec = ram_addr(s) | (rng_next(s) & 1);
	c->csr.mstatus |= 3ULL << 13; /* FS dirty: FP code runs */
	for (int i = 1; i < 32; i++)
		c->x[i] = rng_next(s) % 3 ? ram_addr(s) : rng_next(s);
	uint64_t r = rng_next(s);
	if (r & 1) {
		uint64_t root = (BARE_RAM_BASE + (rng_next(s) % FUZZ_RAM)) >> 12;
		c->csr.satp = 8ULL << 60 | root;
		c->csr.medeleg = rng_next(s) & 0xb3ff;
		c->priv = (r >> 1) & 1 ? PRV_S : PRV_U;
		c->csr.mstatus |= (rng_next(s) & 7) << 17; /* MPRV, SUM, MXR */
	}
	cpu_flush_tlb(c);
}

/* The offset of the first byte where a and b differ, or -1. */
static long first_difference(const uint8_t *a, const uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (a[i] != b[i])
			return (long)i;
	return -1;
}

/* One round from seed s with the given engine: the hart's state and RAM
 * after it, in state and ram (FUZZ_RAM bytes). 0, or -1 on a setup error. */
static int run_round(struct bare *m, uint64_t s, bool jit, FILE *sink, uint8_t *state, uint8_t *ram)
{
	char err[256];
	if (bare_init_blank(m, FUZZ_RAM, sink, err, sizeof(err)) || cpu_use_jit(&m->cpu, jit)) {
		fprintf(stderr, "fuzz_cpu: %s\n", err);
		return -1;
	}
	setup_round(m, &s, ram);
	bare_run(m, FUZZ_STEPS);
	cpu_state_save(&m->cpu, state);
	ram_read(&m->ram, m->ram.base, ram, FUZZ_RAM);
	return 0;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 2000;
	uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 0) : 1;
	FILE *sink = fopen("/dev/null", "w");
	struct bare *m = malloc(sizeof(*m));
	uint8_t *state[2] = {malloc(CPU_STATE_SIZE), malloc(CPU_STATE_SIZE)};
	uint8_t *ram[2] = {malloc(FUZZ_RAM), malloc(FUZZ_RAM)};
	uint64_t total = 0, retired = 0;
	if (!sink || !m || !state[0] || !state[1] || !ram[0] || !ram[1]) {
		fprintf(stderr, "fuzz_cpu: setup failed\n");
		return 1;
	}
	for (int i = 0; i < rounds; i++) {
		uint64_t s = (seed + (uint64_t)i) * 0x9e3779b97f4a7c15ULL | 1;
		for (int jit = 0; jit < 2; jit++) {
			if (run_round(m, s, jit, sink, state[jit], ram[jit]))
				return 1;
			if (!jit) {
				total += cpu_steps(&m->cpu);
				retired += cpu_retired(&m->cpu);
			}
			bare_free(m);
		}
		long at = first_difference(state[0], state[1], CPU_STATE_SIZE);
		long ram_at = first_difference(ram[0], ram[1], FUZZ_RAM);
		if (at >= 0 || ram_at >= 0) {
			fprintf(
			    stderr,
			    "fuzz_cpu: round %d (seed %llu): the translation cache left another %s "
			    "than the interpreter (first difference at byte %ld)\n",
			    i, (unsigned long long)(seed + (uint64_t)i),
			    at >= 0 ? "hart state" : "RAM", at >= 0 ? at : ram_at);
			return 1;
		}
	}
	printf("fuzz_cpu: %d rounds, %llu instructions stepped (%llu retired, the rest trapped), "
	       "no host fault, compiled and interpreted alike\n",
	       rounds, (unsigned long long)total, (unsigned long long)retired);
	for (int k = 0; k < 2; k++)
		free(state[k]), free(ram[k]);
	free(m);
	fclose(sink);
	return 0;
}
