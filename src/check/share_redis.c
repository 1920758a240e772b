/* share_redis.c - the share (share.h) of a run whose workers are on any
 * number of hosts: one Redis server (>= 5.0) holds the run, under keys
 * that all start with "themis:" (so a new run can clear an old one
 * without touching anything else on the server):
 *
 *   themis:config    the coordinator's config text (joining workers match it)
 *   themis:visited   hash: the 16 raw key bytes -> "REMAINING:WORKER"
 *   themis:queue     list of work items, RPUSH / LPOP (first in, first out)
 *   themis:busy      how many workers hold an item
 *   themis:held      hash: worker id -> the item it holds
 *   themis:leases    sorted set: worker id -> when its lease on its item
 *                    ends (the server's clock, seconds)
 *   themis:dead      set of the ids whose lease ran out
 *   themis:lease     the lease's length in seconds (--lease)
 *   themis:nworkers  the last worker id given (INCR)
 *   themis:run       the run's id (the server's clock when it started)
 *   themis:waiting   how many workers poll an empty queue (for `hungry`)
 *   themis:stop      exists once the run is stopped
 *   themis:totals    hash of the counts (CHECK_TOTALS in check.h: sums, and deepest
 *                    kept as a maximum) and the lenses' words (l0, l1...,
 *                    each merged by its kind: summed, maximum or OR-ed)
 *   themis:nrecords  the last record number given (INCR)
 *   themis:records   hash: "N:field" -> text, for the first SHARE_RECORDS_MAX
 *   themis:active    how many processes have the run open (create, join;
 *                    close leaves)
 *
 * Keys do not outlive their run: every one expires a day after the run's
 * last count (a run whose every process died), a minute after its
 * coordinator ended it (stop set, so late workers wind down), and is
 * deleted when the last process that has the run open closes it after
 * the end.
 *
 * Every read-modify-write is one Lua script, which Redis runs atomically:
 * visit (compare and store remaining), take (end the previous item, pop
 * the next and count the taker busy: no one can see the queue empty and
 * no worker busy while an item is between two workers), count, record.
 * Scripts are loaded when connecting and called by EVALSHA (EVAL again if
 * the server's script cache was flushed).
 *
 * A worker can die holding an item (killed by its scheduler, its host
 * gone). Each worker process has an id, and a thread of its own (with its
 * own connection) renews the lease on the item it holds every quarter of
 * the lease, for as long as the process lives: the lease measures that the
 * process is there, not how long an operation takes. The next take after
 * a lease ran out puts the item back at the head of the queue and marks
 * its worker dead. Every visited entry names the worker that made it, and
 * entries of dead workers count as never made: their subtrees may be half
 * explored, so the item's new taker explores them again. A worker found
 * dead (it was cut off for a whole lease) stops with an error. New states
 * are counted in the visit script itself, so that the unique count is
 * exact however workers die.
 *
 * A worker belongs to the run whose config it joined: every script that
 * changes the run (visit, put, take, count, record) first checks the run
 * id it was given against themis:run, so a worker of a run that a new one
 * replaced (its config read just before) stops with an error instead of
 * working the new run's queue with another machine.
 *
 * A share is one connection, owned by the process that opened it; a
 * process forked from that one opens its own on first use rather than
 * interleave commands on the parent's socket. A lost connection or a
 * Redis error makes the call fail with a one-line message in err; after a
 * lost connection the share counts as stopped, so the worker winds down. */
#include <hiredis/hiredis.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../util/clock.h"
#include "share.h"

#define KEY_CONFIG   "themis:config"
#define KEY_VISITED  "themis:visited"
#define KEY_QUEUE    "themis:queue"
#define KEY_BUSY     "themis:busy"
#define KEY_WAITING  "themis:waiting"
#define KEY_STOP     "themis:stop"
#define KEY_TOTALS   "themis:totals"
#define KEY_NRECORDS "themis:nrecords"
#define KEY_RECORDS  "themis:records"
#define KEY_HELD     "themis:held"
#define KEY_LEASES   "themis:leases"
#define KEY_DEAD     "themis:dead"
#define KEY_LEASE    "themis:lease"
#define KEY_NWORKERS "themis:nworkers"
#define KEY_RUN	     "themis:run"
#define KEY_ACTIVE   "themis:active"
/* Every key of a run, once: config, queue, lease and run first (the start
 * script's KEYS[1..4]). */
#define RUN_KEY_LIST(X)                                                                            \
	X(KEY_CONFIG)                                                                              \
	X(KEY_QUEUE)                                                                               \
	X(KEY_LEASE)                                                                               \
	X(KEY_RUN)                                                                                 \
	X(KEY_VISITED)                                                                             \
	X(KEY_BUSY)                                                                                \
	X(KEY_WAITING)                                                                             \
	X(KEY_STOP)                                                                                \
	X(KEY_TOTALS)                                                                              \
	X(KEY_NRECORDS)                                                                            \
	X(KEY_RECORDS)                                                                             \
	X(KEY_HELD)                                                                                \
	X(KEY_LEASES)                                                                              \
	X(KEY_DEAD)                                                                                \
	X(KEY_NWORKERS)                                                                            \
	X(KEY_ACTIVE)
#define RUN_KEY_C(k) k,
static const char *const run_keys[] = {RUN_KEY_LIST(RUN_KEY_C)};
#undef RUN_KEY_C
#define NRUN_KEYS (int)(sizeof(run_keys) / sizeof(run_keys[0]))
#define RUN_OVER  "the run this worker joined is over (a new run started at this server since)"

#define CONNECT_TIMEOUT 3     /* seconds: connecting and the first commands */
#define COMMAND_TIMEOUT 30    /* seconds: any later reply (a wedged server or network) */
#define CACHE_SECONDS	0.005 /* how stale `stopped` and `hungry` may be */
#define POLL_MIN_NS	1000000L
#define POLL_MAX_NS	20000000L
#define ARGS_MAX	32 /* the longest command sent: START's keys and config, COUNT */

enum {
	S_VISIT,
	S_TAKE,
	S_COUNT,
	S_RECORD,
	S_HUNGRY,
	S_START,
	S_RENEW,
	S_PUT,
	S_ARRIVE,
	S_LEAVE,
	NSCRIPTS
};

/* The scripts that change a run: script() gives them the run's key as
 * their last key and this worker's run id as their last argument, and
 * they start with LUA_SAME_RUN. */
static const bool guarded[NSCRIPTS] = {
    [S_VISIT] = true, [S_TAKE] = true, [S_COUNT] = true, [S_RECORD] = true, [S_PUT] = true};
#define LUA_SAME_RUN                                                                               \
	"if redis.call('GET', KEYS[#KEYS]) ~= ARGV[#ARGV] then\n"                                  \
	"  return redis.error_reply('" RUN_OVER "')\n"                                             \
	"end\n"

/* Lua: every key of the run expires RUN_TTL seconds after the last count
 * (refreshed at most once a minute), so a run whose coordinator died does
 * not stay on the server for ever; a run that ended (its keys given
 * RUN_END_TTL by redis_finish) is not kept alive by a late worker. */
#define RUN_TTL	       86400
#define RUN_END_TTL    60
#define RUN_KEY_LUA(k) "'" k "', "
#define RUN_KEYS       "{" RUN_KEY_LIST(RUN_KEY_LUA) "}"
#define STR2_(x)       #x
#define STR2(x)	       STR2_(x)
#define LUA_REFRESH                                                                                \
	"local ttl = redis.call('TTL', KEYS[#KEYS])\n"                                             \
	"if ttl == -1 or (ttl > " STR2(RUN_END_TTL) " and ttl < " STR2(                            \
	    RUN_TTL) " - 60) then\n"                                                               \
		     "  for _, k in ipairs(" RUN_KEYS                                              \
		     ") do redis.call('EXPIRE', k, " STR2(RUN_TTL) ") end\n"                       \
								   "end\n"

/* Lua: the server's clock in seconds, as a number. */
#define LUA_NOW "local t = redis.call('TIME')\nlocal now = tonumber(t[1]) + tonumber(t[2]) / 1e6\n"

static const char *const scripts[NSCRIPTS] = {
    /* KEYS: visited, dead, totals. ARGV: key, remaining, worker id, the
     * totals' field of the state's depth (by_depth's unique). 2 new (and
     * counted unique, in all and at its depth), 1 to explore again (deeper
     * than before, or marked by a dead worker), 0 not. */
    [S_VISIT] =
	LUA_SAME_RUN "local old = redis.call('HGET', KEYS[1], ARGV[1])\n"
		     "local mine = ARGV[2] .. ':' .. ARGV[3]\n"
		     "if not old then\n"
		     "  redis.call('HSET', KEYS[1], ARGV[1], mine)\n"
		     "  redis.call('HINCRBY', KEYS[3], 'unique', 1)\n"
		     "  redis.call('HINCRBY', KEYS[3], ARGV[4], 1)\n"
		     "  return 2\n"
		     "end\n"
		     "local sep = string.find(old, ':', 1, true)\n"
		     "if redis.call('SISMEMBER', KEYS[2], string.sub(old, sep + 1)) == 1 or\n"
		     "   tonumber(string.sub(old, 1, sep - 1)) < tonumber(ARGV[2]) then\n"
		     "  redis.call('HSET', KEYS[1], ARGV[1], mine)\n"
		     "  return 1\n"
		     "end\n"
		     "return 0\n",
    /* KEYS: queue, busy, waiting, stop, held, leases, dead, lease.
     * ARGV: '1' if the caller ends an item, '1' if it is counted in
     * waiting, its id. First the items of expired leases go back to the
     * head of the queue. {1, item}: taken; {0}: no work left or stopped;
     * {2}: empty but some worker is busy (poll again; the caller is now
     * counted in waiting); {3}: the caller's own lease ran out. */
    [S_TAKE] = LUA_SAME_RUN
    "if redis.call('SISMEMBER', KEYS[7], ARGV[3]) == 1 then return {3} end\n"
    "if ARGV[1] == '1' and redis.call('HDEL', KEYS[5], ARGV[3]) == 1 then\n"
    "  redis.call('DECR', KEYS[2])\n"
    "end\n"
    "redis.call('ZREM', KEYS[6], ARGV[3])\n" LUA_NOW
    "for _, id in ipairs(redis.call('ZRANGEBYSCORE', KEYS[6], '-inf', now)) do\n"
    "  local held = redis.call('HGET', KEYS[5], id)\n"
    "  if held then\n"
    "    redis.call('LPUSH', KEYS[1], held)\n"
    "    redis.call('HDEL', KEYS[5], id)\n"
    "    redis.call('DECR', KEYS[2])\n"
    "  end\n"
    "  redis.call('ZREM', KEYS[6], id)\n"
    "  redis.call('SADD', KEYS[7], id)\n"
    "end\n"
    "local waiting = ARGV[2] == '1'\n"
    "local item = false\n"
    "if redis.call('EXISTS', KEYS[4]) == 0 then\n"
    "  item = redis.call('LPOP', KEYS[1])\n"
    "  if not item and tonumber(redis.call('GET', KEYS[2]) or '0') > 0 then\n"
    "    if not waiting then redis.call('INCR', KEYS[3]) end\n"
    "    return {2}\n"
    "  end\n"
    "end\n"
    "if waiting then redis.call('DECR', KEYS[3]) end\n"
    "if item then\n"
    "  redis.call('INCR', KEYS[2])\n"
    "  redis.call('HSET', KEYS[5], ARGV[3], item)\n"
    "  redis.call('ZADD', KEYS[6], now + tonumber(redis.call('GET', KEYS[8])), ARGV[3])\n"
    "  return {1, item}\n"
    "end\n"
    "return {0}\n",
    /* KEYS: totals. ARGV: the fixed totals' deltas (space-separated, in
     * CHECK_TOTALS order), the lens words' kinds, their nonzero deltas as
     * "INDEX=VALUE ...", how many lens words there are, the fixed totals'
     * kinds (one argument each), then the per-depth words' nonzero deltas
     * ("INDEX=VALUE ...", all summed) and how many there are. The totals:
     * the fixed ones as strings, then the lens words in one string, then
     * the per-depth words in one string. Lens words are fields l0, l1,
     * ...; OR words hold 32-bit sets; per-depth words are d0, d1, ... */
    [S_COUNT] = LUA_SAME_RUN LUA_REFRESH
#define LUA_TOTAL_NAME(name, kind, json, text) "'" #name "', "
    "local names = {" CHECK_TOTALS(
	LUA_TOTAL_NAME) "}\n"
#undef LUA_TOTAL_NAME
			"local i = 0\n"
			"for v in string.gmatch(ARGV[1], '%S+') do\n"
			"  i = i + 1\n"
			"  if v ~= '0' then\n"
			"    local old = tonumber(redis.call('HGET', KEYS[1], names[i]) or '0')\n"
			"    if ARGV[4 + i] == 's' then redis.call('HINCRBY', KEYS[1], names[i], "
			"v)\n"
			"    elseif tonumber(v) > old then redis.call('HSET', KEYS[1], names[i], "
			"v) end\n"
			"  end\n"
			"end\n"
			"for idx, v in string.gmatch(ARGV[3], '(%d+)=(%d+)') do\n"
			"  local k = string.sub(ARGV[2], idx + 1, idx + 1)\n"
			"  local f = 'l' .. idx\n"
			"  if k == 's' then redis.call('HINCRBY', KEYS[1], f, v)\n"
			"  else\n"
			"    local old = tonumber(redis.call('HGET', KEYS[1], f) or '0')\n"
			"    local n = tonumber(v)\n"
			"    if k == 'm' then if old > n then n = old end\n"
			"    else n = bit.bor(old, n) if n < 0 then n = n + 4294967296 end end\n"
			"    redis.call('HSET', KEYS[1], f, string.format('%.0f', n))\n"
			"  end\n"
			"end\n"
			"local t = redis.call('HMGET', KEYS[1], unpack(names))\n"
			"for j = 1, #names do t[j] = t[j] or '0' end\n"
			"local fields, words = {}, {}\n"
			"for j = 0, tonumber(ARGV[4]) - 1 do fields[#fields + 1] = 'l' .. j end\n"
			"if #fields > 0 then words = redis.call('HMGET', KEYS[1], unpack(fields)) "
			"end\n"
			"for j = 1, #fields do words[j] = words[j] or '0' end\n"
			"t[#names + 1] = table.concat(words, ' ')\n"
			"for idx, v in string.gmatch(ARGV[5 + #names], '(%d+)=(%d+)') do\n"
			"  redis.call('HINCRBY', KEYS[1], 'd' .. idx, v)\n"
			"end\n"
			"local dfields = {}\n"
			"for j = 0, tonumber(ARGV[6 + #names]) - 1 do dfields[#dfields + 1] = 'd' "
			".. j "
			"end\n"
			"local depths = redis.call('HMGET', KEYS[1], unpack(dfields))\n"
			"for j = 1, #dfields do depths[j] = depths[j] or '0' end\n"
			"t[#names + 2] = table.concat(depths, ' ')\n"
			"return t\n",
    /* KEYS: nrecords, records. ARGV: how many to keep, then the fields.
     * The record's number. */
    [S_RECORD] = LUA_SAME_RUN
    "local n = redis.call('INCR', KEYS[1])\n"
    "if n <= tonumber(ARGV[1]) then\n"
    "  redis.call('HSET', KEYS[2], n .. ':finding', ARGV[2], n .. ':depth', ARGV[3],\n"
    "    n .. ':sig', ARGV[4], n .. ':detail', ARGV[5], n .. ':ops', ARGV[6],\n"
    "    n .. ':min_ops', ARGV[7], n .. ':min_detail', ARGV[8])\n"
    "end\n"
    "return n\n",
    /* KEYS: waiting, queue. */
    [S_HUNGRY] = "if tonumber(redis.call('GET', KEYS[1]) or '0') > 0 and\n"
		 "   redis.call('LLEN', KEYS[2]) == 0 then return 1 end\n"
		 "return 0\n",
    /* KEYS: config, queue, lease, then every other key of a run. ARGV:
     * config, lease. Clears the run and starts a new one: the root item
     * queued, every count absent (zero), the config last so no worker
     * joins early. */
    [S_START] = "for i = 1, #KEYS do redis.call('UNLINK', KEYS[i]) end\n"
		"redis.call('RPUSH', KEYS[2], '')\n"
		"redis.call('SET', KEYS[3], ARGV[2])\n"
		"local t = redis.call('TIME')\n"
		"local run = t[1] .. '.' .. t[2]\n"
		"redis.call('SET', KEYS[4], run)\n"
		"redis.call('SET', KEYS[1], ARGV[1])\n"
		"return run\n",
    /* KEYS: leases, dead, lease. ARGV: worker id. Extends the caller's
     * lease if it holds an item. The lease's length, or -1 if the caller
     * was found dead. */
    [S_RENEW] = "if redis.call('SISMEMBER', KEYS[2], ARGV[1]) == 1 then return -1 end\n"
		"local lease = tonumber(redis.call('GET', KEYS[3]) or '0')\n"
		"if redis.call('ZSCORE', KEYS[1], ARGV[1]) then\n" LUA_NOW
		"  redis.call('ZADD', KEYS[1], now + lease, ARGV[1])\n"
		"end\n"
		"return lease\n",
    /* KEYS: queue. ARGV: the item. The queue's length. */
    [S_PUT] = LUA_SAME_RUN "return redis.call('RPUSH', KEYS[1], ARGV[1])\n",
    /* KEYS: run, active. ARGV: the run's id. A process has the run open. */
    [S_ARRIVE] = "if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end\n"
		 "return redis.call('INCR', KEYS[2])\n",
    /* KEYS: run, active, stop. ARGV: the run's id. A process closes the
     * run; the last one after the run's end deletes every key of it. 1
     * when it did. */
    [S_LEAVE] = "if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end\n"
		"local n = redis.call('DECR', KEYS[2])\n"
		"if n > 0 or redis.call('EXISTS', KEYS[3]) == 0 then return 0 end\n"
		"for _, k in ipairs(" RUN_KEYS ") do redis.call('UNLINK', k) end\n"
		"return 1\n",
};

/* The record's fields, in the order S_RECORD's ARGV and records() use. */
static const char *const record_fields[] = {"finding", "depth",	  "sig",       "detail",
					    "ops",     "min_ops", "min_detail"};
#define NFIELDS 7

struct rshare {
	struct share base;
	redisContext *c;
	pid_t pid; /* the process that opened c */
	char host[256];
	int port;
	char where[300]; /* HOST:PORT, for messages */
	char sha[NSCRIPTS][41];
	bool has_item; /* this worker holds an item: themis:busy counts it */
	bool waiting;  /* this worker is counted in themis:waiting */
	bool stop;     /* the run is stopped, as far as this worker knows */
	bool broken;   /* the connection failed: every later call fails */
	bool hungry;   /* the last answer, cached until hungry_at + CACHE_SECONDS */
	double stop_at, hungry_at;
	char run[64];	   /* the run's id (themis:run) this share belongs to */
	long long id;	   /* this process's worker id (themis:nworkers) */
	pid_t id_pid;	   /* the process id names (a forked child takes its own) */
	bool renewing;	   /* this process runs the lease thread */
	pthread_t renewer; /* renews the lease while the process lives */
	pthread_mutex_t mu;
	pthread_cond_t wake; /* ends the thread's wait, at close */
	bool quit;	     /* under mu: the thread should end */
	atomic_bool lost;    /* the thread found this worker dead */
	pid_t creator;	     /* the coordinator's process, which ends the run at close */
	pid_t arrived;	     /* the process counted in themis:active (0: none) */
};

/* A one-line message into err: Redis's own texts may hold newlines. */
static void put_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	for (char *p = err; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
}

/* ---- connecting ---- */

/* redis://HOST:PORT (PORT defaults to 6379; HOST may be [IPv6]). */
static int parse_url(struct rshare *r, const char *url, char *err, size_t errlen)
{
	static const char scheme[] = "redis://";
	const char *p = url, *host, *end;
	if (strncmp(p, scheme, sizeof(scheme) - 1))
		goto bad;
	p += sizeof(scheme) - 1;
	if (*p == '[') {
		host = ++p;
		end = strchr(p, ']');
		if (!end)
			goto bad;
		p = end + 1;
	} else {
		host = p;
		end = p + strcspn(p, ":");
		p = end;
	}
	size_t len = (size_t)(end - host);
	if (!len || len >= sizeof(r->host) || memchr(host, '/', len) || memchr(host, '@', len) ||
	    memchr(host, ' ', len) || memchr(host, '?', len))
		goto bad;
	memcpy(r->host, host, len);
	r->host[len] = 0;
	r->port = 6379;
	if (*p == ':') {
		char *stop;
		long port = strtol(++p, &stop, 10);
		if (stop == p || *stop || port < 1 || port > 65535 || *p < '0' || *p > '9')
			goto bad;
		r->port = (int)port;
	} else if (*p) {
		goto bad;
	}
	snprintf(r->where, sizeof(r->where), strchr(r->host, ':') ? "[%s]:%d" : "%s:%d", r->host,
		 r->port);
	return 0;
bad:
	put_err(err, errlen, "bad Redis URL '%s': expected redis://HOST:PORT", url);
	return -1;
}

/* A reply that is not an error, or NULL with err set (an error reply is
 * freed here; no reply at all means the connection is gone). */
static redisReply *checked(struct rshare *r, redisReply *rep)
{
	if (!rep) {
		r->broken = r->stop = true;
		put_err(r->base.err, sizeof(r->base.err), "lost the connection to Redis at %s: %s",
			r->where, r->c->errstr[0] ? r->c->errstr : "no reply");
		return NULL;
	}
	if (rep->type == REDIS_REPLY_ERROR) {
		put_err(r->base.err, sizeof(r->base.err), "Redis at %s: %s", r->where, rep->str);
		if (strstr(rep->str, RUN_OVER))
			r->stop = r->base.lost = true;
		freeReplyObject(rep);
		return NULL;
	}
	return rep;
}

/* Connect to r->host:r->port and load the scripts. 0, or -1 with err. */
/* A connection to r's server whose replies wait CONNECT_TIMEOUT at most
 * (something at the port that is not Redis should fail as fast as nothing
 * there): NULL when out of memory, else check its err. */
static redisContext *dial(const struct rshare *r)
{
	struct timeval tv = {CONNECT_TIMEOUT, 0};
	redisContext *c = redisConnectWithTimeout(r->host, r->port, tv);
	if (c && !c->err)
		redisSetTimeout(c, tv); /* sets c->err on failure */
	return c;
}

static int connect_server(struct rshare *r)
{
	r->c = dial(r);
	if (!r->c || r->c->err) {
		put_err(r->base.err, sizeof(r->base.err), "cannot reach Redis at %s: %s", r->where,
			r->c ? r->c->errstr : "out of memory");
		r->broken = true;
		return -1;
	}
	for (int i = 0; i < NSCRIPTS; i++) {
		const char *argv[] = {"SCRIPT", "LOAD", scripts[i]};
		redisReply *rep = checked(r, redisCommandArgv(r->c, 3, argv, NULL));
		if (!rep && r->broken) /* no answer: not a Redis server, or a wedged one */
			put_err(r->base.err, sizeof(r->base.err), "cannot reach Redis at %s: %s",
				r->where, r->c->errstr[0] ? r->c->errstr : "no reply");
		if (!rep)
			return -1;
		int ok = rep->type == REDIS_REPLY_STRING && rep->len == 40;
		if (ok)
			memcpy(r->sha[i], rep->str, 41);
		freeReplyObject(rep);
		if (!ok) {
			put_err(r->base.err, sizeof(r->base.err),
				"Redis at %s: SCRIPT LOAD gave no script id", r->where);
			return -1;
		}
	}
	struct timeval tv = {COMMAND_TIMEOUT, 0};
	/* Keepalive only shortens noticing a dead peer: failing to set it is harmless. */
	redisEnableKeepAlive(r->c);
	if (redisSetTimeout(r->c, tv) != REDIS_OK) {
		put_err(r->base.err, sizeof(r->base.err), "Redis at %s: %s", r->where,
			r->c->errstr);
		r->broken = true;
		return -1;
	}
	r->pid = getpid();
	return 0;
}

/* This process's connection: a forked child drops the parent's (closing
 * only its own copy of the socket) and opens one of its own; it holds no
 * item and waits for none. 0, or -1 with err. */
static int own_connection(struct rshare *r)
{
	if (r->broken)
		return -1;
	if (r->pid == getpid())
		return 0;
	redisFree(r->c);
	r->c = NULL;
	r->has_item = r->waiting = false;
	return connect_server(r);
}

/* One command. The reply, or NULL with err set. */
static redisReply *command(struct rshare *r, int argc, const char **argv, const size_t *len)
{
	if (own_connection(r))
		return NULL;
	return checked(r, redisCommandArgv(r->c, argc, argv, len));
}

/* One script with nkeys keys and nargs arguments (lens: the arguments'
 * lengths, or NULL when all are strings). The reply, or NULL with err. */
static redisReply *script(struct rshare *r, int which, int nkeys, const char *const *keys,
			  int nargs, const char *const *args, const size_t *lens)
{
	const char *argv[ARGS_MAX];
	size_t len[ARGS_MAX];
	char n[16];
	int argc = 0;
	snprintf(n, sizeof(n), "%d", nkeys + guarded[which]);
	argv[argc++] = "EVALSHA";
	argv[argc++] = r->sha[which];
	argv[argc++] = n;
	for (int i = 0; i < nkeys; i++)
		argv[argc++] = keys[i];
	if (guarded[which])
		argv[argc++] = KEY_RUN;
	int nk = argc;
	for (int i = 0; i < nargs; i++) {
		len[argc] = lens ? lens[i] : strlen(args[i]);
		argv[argc++] = args[i];
	}
	if (guarded[which]) {
		len[argc] = strlen(r->run);
		argv[argc++] = r->run;
	}
	for (int i = 0; i < nk; i++)
		len[i] = strlen(argv[i]);
	if (own_connection(r))
		return NULL;
	redisReply *rep = redisCommandArgv(r->c, argc, argv, len);
	if (rep && rep->type == REDIS_REPLY_ERROR && !strncmp(rep->str, "NOSCRIPT", 8)) {
		/* The server's script cache was flushed: EVAL sends the body
		 * (and caches it again under the same id). */
		freeReplyObject(rep);
		argv[0] = "EVAL";
		argv[1] = scripts[which];
		len[0] = 4;
		len[1] = strlen(scripts[which]);
		rep = redisCommandArgv(r->c, argc, argv, len);
	}
	return checked(r, rep);
}

/* An integer reply's value, or -1 with err for any other reply. Frees it. */
static long long integer_of(struct rshare *r, redisReply *rep)
{
	if (!rep)
		return -1;
	long long v = rep->type == REDIS_REPLY_INTEGER ? rep->integer : -1;
	if (v < 0)
		put_err(r->base.err, sizeof(r->base.err), "Redis at %s: unexpected reply type %d",
			r->where, rep->type);
	freeReplyObject(rep);
	return v;
}

/* ---- the lease ---- */

/* The lease thread: every quarter of the lease (read from the server on
 * each renewal), extend this worker's lease on its item, on a connection
 * of its own; a failed renewal is tried again on a new connection. */
static void *renew_loop(void *arg)
{
	struct rshare *r = arg;
	redisContext *c = NULL;
	long period_ms = 250;
	pthread_mutex_lock(&r->mu);
	while (!r->quit) {
		pthread_mutex_unlock(&r->mu);
		if (!c && (c = dial(r)) && c->err) {
			redisFree(c);
			c = NULL;
		}
		redisReply *rep = c ? redisCommand(c, "EVAL %s 3 %s %s %s %lld", scripts[S_RENEW],
						   KEY_LEASES, KEY_DEAD, KEY_LEASE, r->id)
				    : NULL;
		if (!rep && c) {
			redisFree(c);
			c = NULL;
		}
		if (rep && rep->type == REDIS_REPLY_INTEGER) {
			if (rep->integer < 0)
				atomic_store(&r->lost, true);
			else if (rep->integer > 0)
				period_ms = (long)(rep->integer * 1000 / 4);
		}
		if (rep)
			freeReplyObject(rep);
		struct timespec until;
		clock_gettime(CLOCK_MONOTONIC, &until);
		until.tv_sec += period_ms / 1000;
		until.tv_nsec += period_ms % 1000 * 1000000L;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		pthread_mutex_lock(&r->mu);
		while (!r->quit && pthread_cond_timedwait(&r->wake, &r->mu, &until) == 0)
			;
	}
	pthread_mutex_unlock(&r->mu);
	redisFree(c);
	return NULL;
}

static void stop_renewing(struct rshare *r)
{
	if (!r->renewing)
		return;
	pthread_mutex_lock(&r->mu);
	r->quit = true;
	pthread_cond_signal(&r->wake);
	pthread_mutex_unlock(&r->mu);
	pthread_join(r->renewer, NULL);
	pthread_cond_destroy(&r->wake);
	pthread_mutex_destroy(&r->mu);
	r->renewing = false;
}

/* This process's worker id, and its lease thread: on first use in each
 * process (a forked child has no thread, and must not share the parent's
 * id). 0, or -1 with err. */
static int own_id(struct rshare *r)
{
	if (r->id_pid == getpid())
		return 0;
	r->renewing = false; /* a parent's thread did not survive the fork */
	const char *argv[] = {"INCR", KEY_NWORKERS};
	long long id = integer_of(r, command(r, 2, argv, NULL));
	if (id < 1)
		return -1;
	r->id = id;
	r->id_pid = getpid();
	r->quit = false;
	atomic_store(&r->lost, false);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	int rc = pthread_mutex_init(&r->mu, NULL) || pthread_cond_init(&r->wake, &ca);
	pthread_condattr_destroy(&ca);
	if (rc || pthread_create(&r->renewer, NULL, renew_loop, r)) {
		put_err(r->base.err, sizeof(r->base.err), "cannot start the lease thread");
		return -1;
	}
	r->renewing = true;
	return 0;
}

/* This worker was cut off for longer than its lease: another has its
 * item, and whatever it marks from now on counts for nothing. */
static void lease_lost(struct rshare *r)
{
	if (!r->stop)
		fprintf(stderr,
			"themis: worker %lld lost its lease at Redis %s (cut off for longer than "
			"--lease): its item went back to the queue; stopping\n",
			r->id, r->where);
	put_err(r->base.err, sizeof(r->base.err), "worker %lld lost its lease at Redis %s", r->id,
		r->where);
	r->stop = r->base.lost = true;
}

static const struct share_ops redis_ops;

/* Count this process in the run's themis:active (see the top). */
static void arrive(struct rshare *r)
{
	const char *keys[] = {KEY_RUN, KEY_ACTIVE};
	const char *args[] = {r->run};
	if (integer_of(r, script(r, S_ARRIVE, 2, keys, 1, args, NULL)) > 0)
		r->arrived = getpid();
}

/* A connected share for url, or NULL with err. */
static struct rshare *open_url(const char *url, char *err, size_t errlen)
{
	struct rshare *r = calloc(1, sizeof(*r));
	if (!r) {
		put_err(err, errlen, "out of memory");
		return NULL;
	}
	r->base.ops = &redis_ops;
	r->base.counts_unique = true;
	if (parse_url(r, url, err, errlen)) {
		free(r);
		return NULL;
	}
	if (connect_server(r)) {
		put_err(err, errlen, "%s", r->base.err);
		redisFree(r->c);
		free(r);
		return NULL;
	}
	return r;
}

/* The run is over (the coordinator has read its records): stop its
 * workers and let its keys go. Not deleted at once: a worker still
 * finishing must see the run end (stopped), not vanish (an error); a
 * minute later nothing of the run is left on the server. */
static void redis_finish(struct rshare *r)
{
	const char *set[] = {"SET", KEY_STOP, "1"};
	redisReply *rep = command(r, 3, set, NULL);
	if (rep)
		freeReplyObject(rep);
	char secs[16];
	snprintf(secs, sizeof(secs), "%d", RUN_END_TTL);
	for (int i = 0; i < NRUN_KEYS && !r->broken; i++) {
		const char *argv[] = {"EXPIRE", run_keys[i], secs};
		if ((rep = command(r, 3, argv, NULL)))
			freeReplyObject(rep);
	}
}

static void redis_close(struct share *s)
{
	struct rshare *r = (struct rshare *)s;
	if (r->creator == getpid() && r->pid == getpid() && !r->broken)
		redis_finish(r);
	if (r->arrived == getpid() && r->pid == getpid() && !r->broken) {
		const char *keys[] = {KEY_RUN, KEY_ACTIVE, KEY_STOP};
		const char *args[] = {r->run};
		/* An error: the keys expire instead. */
		(void)integer_of(r, script(r, S_LEAVE, 3, keys, 1, args, NULL));
	}
	/* The run stays: the coordinator reads its records after the workers
	 * have closed theirs. */
	if (r->id_pid == getpid())
		stop_renewing(r);
	redisFree(r->c);
	free(r);
}

/* ---- the operations ---- */

static int redis_visit(struct share *s, const uint8_t key[16], int remaining, int depth)
{
	struct rshare *r = (struct rshare *)s;
	const char *keys[] = {KEY_VISITED, KEY_DEAD, KEY_TOTALS};
	char rem[16], id[24], field[24];
	if (own_id(r))
		return -1;
	if (depth < 0 || depth >= SHARE_DEPTHS) {
		put_err(s->err, sizeof(s->err), "a state at depth %d (at most %d)", depth,
			SHARE_DEPTHS - 1);
		return -1;
	}
	snprintf(rem, sizeof(rem), "%d", remaining);
	snprintf(id, sizeof(id), "%lld", r->id);
	snprintf(field, sizeof(field), "d%d", SHARE_DEPTH_unique * SHARE_DEPTHS + depth);
	const char *args[] = {(const char *)key, rem, id, field};
	size_t lens[] = {16, strlen(rem), strlen(id), strlen(field)};
	long long v = integer_of(r, script(r, S_VISIT, 3, keys, 4, args, lens));
	return v < 0 ? -1 : (int)v;
}

static int redis_put(struct share *s, const char *item)
{
	struct rshare *r = (struct rshare *)s;
	size_t len = strlen(item);
	if (len >= SHARE_ITEM_MAX) {
		put_err(s->err, sizeof(s->err), "a work item of %zu bytes (at most %d)", len,
			SHARE_ITEM_MAX - 1);
		return -1;
	}
	const char *keys[] = {KEY_QUEUE};
	const char *args[] = {item};
	return integer_of(r, script(r, S_PUT, 1, keys, 1, args, &len)) < 0 ? -1 : 0;
}

static int redis_take(struct share *s, char *item, size_t cap)
{
	struct rshare *r = (struct rshare *)s;
	const char *keys[] = {KEY_QUEUE, KEY_BUSY,   KEY_WAITING, KEY_STOP,
			      KEY_HELD,	 KEY_LEASES, KEY_DEAD,	  KEY_LEASE};
	long pause = POLL_MIN_NS;
	char id[24];
	/* First: in a forked child this clears the parent's has_item and waiting. */
	if (own_connection(r) || own_id(r)) {
		r->stop = true;
		return -1;
	}
	snprintf(id, sizeof(id), "%lld", r->id);
	for (;;) {
		const char *args[] = {r->has_item ? "1" : "0", r->waiting ? "1" : "0", id};
		redisReply *rep = script(r, S_TAKE, 8, keys, 3, args, NULL);
		if (!rep) {
			/* Whether the script ran is unknown: the counts may be off, so
			 * this worker stops rather than guess. */
			r->has_item = r->waiting = false;
			r->stop = true;
			return -1;
		}
		r->has_item = false;
		long long what = rep->type == REDIS_REPLY_ARRAY && rep->elements >= 1 &&
					 rep->element[0]->type == REDIS_REPLY_INTEGER
				     ? rep->element[0]->integer
				     : -1;
		if (what == 1 && rep->elements == 2 &&
		    rep->element[1]->type == REDIS_REPLY_STRING) {
			redisReply *it = rep->element[1];
			r->has_item = true;
			r->waiting = false;
			if ((size_t)it->len >= cap) {
				put_err(s->err, sizeof(s->err),
					"a work item of %zu bytes does not fit in %zu",
					(size_t)it->len, cap);
				r->stop = true;
				freeReplyObject(rep);
				return -1;
			}
			memcpy(item, it->str, (size_t)it->len);
			item[it->len] = 0;
			freeReplyObject(rep);
			return 1;
		}
		freeReplyObject(rep);
		if (what == 0) {
			r->waiting = false;
			return 0;
		}
		if (what == 3) {
			lease_lost(r);
			r->waiting = false;
			return -1;
		}
		if (what != 2) {
			put_err(s->err, sizeof(s->err), "Redis at %s: unexpected reply to take",
				r->where);
			r->waiting = false; /* unknown, as above */
			r->stop = true;
			return -1;
		}
		/* The queue is empty but a busy worker may still fill it. */
		r->waiting = true;
		nanosleep(&(struct timespec){0, pause}, NULL);
		pause = pause * 2 < POLL_MAX_NS ? pause * 2 : POLL_MAX_NS;
	}
}

static bool redis_hungry(struct share *s)
{
	struct rshare *r = (struct rshare *)s;
	double t = host_seconds();
	if (t - r->hungry_at < CACHE_SECONDS)
		return r->hungry;
	const char *keys[] = {KEY_WAITING, KEY_QUEUE};
	long long v = integer_of(r, script(r, S_HUNGRY, 2, keys, 0, NULL, NULL));
	/* On an error: not hungry (err says why; a lost connection also
	 * stops the worker, through stopped). */
	r->hungry = v == 1;
	r->hungry_at = t;
	return r->hungry;
}

/* Append " VALUE" or " INDEX=VALUE" to a growing string; -1 when full. */
static int put_word(char *buf, size_t cap, size_t *used, long idx, uint64_t v)
{
	int n = idx < 0 ? snprintf(buf + *used, cap - *used, "%s%llu", *used ? " " : "",
				   (unsigned long long)v)
			: snprintf(buf + *used, cap - *used, "%s%ld=%llu", *used ? " " : "", idx,
				   (unsigned long long)v);
	if (n < 0 || (size_t)n >= cap - *used)
		return -1;
	*used += (size_t)n;
	return 0;
}

/* Up to n space-separated numbers of text into words. */
static void words_of(const char *p, uint64_t *words, unsigned n)
{
	for (unsigned i = 0; i < n && *p; i++) {
		char *end;
		words[i] = strtoull(p, &end, 10);
		p = end + strspn(end, " ");
	}
}

/* The reply's totals into total: the fixed ones, the lens words, then
 * the per-depth words. */
static int totals_of(const redisReply *rep, unsigned nlens, struct share_totals *total)
{
	if (rep->type != REDIS_REPLY_ARRAY || rep->elements != CHECK_NTOTALS + 2)
		return -1;
	for (size_t i = 0; i < CHECK_NTOTALS + 2; i++)
		if (rep->element[i]->type != REDIS_REPLY_STRING)
			return -1;
	memset(total, 0, sizeof(*total)); /* never full: Redis grows */
	for (int i = 0; i < CHECK_NTOTALS; i++)
		total->fixed[i] = strtoull(rep->element[i]->str, NULL, 10);
	total->full = 0;
	words_of(rep->element[CHECK_NTOTALS]->str, total->lens, nlens);
	words_of(rep->element[CHECK_NTOTALS + 1]->str, &total->by_depth[0][0], SHARE_DEPTH_WORDS);
	return 0;
}

static int redis_count(struct share *s, const struct share_totals *d, struct share_totals *total)
{
	struct rshare *r = (struct rshare *)s;
	const char *keys[] = {KEY_TOTALS};
	unsigned nlens = (unsigned)strlen(s->kinds);
	char fixed[CHECK_NTOTALS * 24], nwords[16], ndepth[16],
	    *words = malloc(LENS_WORDS_MAX * 32);
	char *depths = malloc(SHARE_DEPTH_WORDS * 32);
	const uint64_t *dw = &d->by_depth[0][0];
	size_t fu = 0, wu = 0, du = 0;
	int rc = words && depths ? 0 : -1;
	for (int i = 0; i < CHECK_NTOTALS && !rc; i++)
		rc = put_word(fixed, sizeof(fixed), &fu, -1,
			      i == CHECK_TOTAL_full ? 0 : d->fixed[i]);
	for (unsigned i = 0; i < nlens && !rc; i++)
		if (d->lens[i])
			rc = put_word(words, LENS_WORDS_MAX * 32, &wu, (long)i, d->lens[i]);
	for (unsigned i = 0; i < SHARE_DEPTH_WORDS && !rc; i++)
		if (dw[i])
			rc = put_word(depths, SHARE_DEPTH_WORDS * 32, &du, (long)i, dw[i]);
	if (words)
		words[wu] = 0;
	if (depths)
		depths[du] = 0;
	snprintf(nwords, sizeof(nwords), "%u", nlens);
	snprintf(ndepth, sizeof(ndepth), "%d", SHARE_DEPTH_WORDS);
	char kinds[CHECK_NTOTALS + 1];
	memcpy(kinds, share_fixed_kinds, CHECK_NTOTALS);
	kinds[CHECK_NTOTALS] = 0;
	/* ARGV[4 + i] is the fixed total i's kind: one argument each; the
	 * per-depth words follow. */
	const char *args[4 + CHECK_NTOTALS + 2];
	char one[CHECK_NTOTALS][2];
	args[0] = fixed, args[1] = s->kinds, args[2] = words ? words : "", args[3] = nwords;
	for (int i = 0; i < CHECK_NTOTALS; i++) {
		one[i][0] = kinds[i], one[i][1] = 0;
		args[4 + i] = one[i];
	}
	args[4 + CHECK_NTOTALS] = depths ? depths : "";
	args[5 + CHECK_NTOTALS] = ndepth;
	redisReply *rep =
	    rc ? NULL : script(r, S_COUNT, 1, keys, 4 + CHECK_NTOTALS + 2, args, NULL);
	free(words);
	free(depths);
	if (!rep)
		return -1;
	struct share_totals got;
	rc = totals_of(rep, nlens, &got);
	if (!rc && total)
		*total = got;
	if (rc)
		put_err(s->err, sizeof(s->err), "Redis at %s: unexpected reply to count", r->where);
	freeReplyObject(rep);
	return rc;
}

static int redis_record(struct share *s, const struct share_record *rec)
{
	struct rshare *r = (struct rshare *)s;
	const char *keys[] = {KEY_NRECORDS, KEY_RECORDS};
	char max[16], depth[16];
	snprintf(max, sizeof(max), "%d", SHARE_RECORDS_MAX);
	snprintf(depth, sizeof(depth), "%d", rec->depth);
	const char *args[] = {
	    max,	  rec->finding ? "1" : "0", depth, rec->sig, rec->detail, rec->ops,
	    rec->min_ops, rec->min_detail};
	size_t lens[] = {strlen(max),
			 1,
			 strlen(depth),
			 strnlen(rec->sig, sizeof(rec->sig)),
			 strnlen(rec->detail, sizeof(rec->detail)),
			 strnlen(rec->ops, sizeof(rec->ops)),
			 strnlen(rec->min_ops, sizeof(rec->min_ops)),
			 strnlen(rec->min_detail, sizeof(rec->min_detail))};
	long long n = integer_of(r, script(r, S_RECORD, 2, keys, 8, args, lens));
	return n < 1 ? -1 : (int)n;
}

static void redis_stop(struct share *s)
{
	struct rshare *r = (struct rshare *)s;
	r->stop = true;
	const char *argv[] = {"SET", KEY_STOP, "1"};
	redisReply *rep = command(r, 3, argv, NULL);
	if (rep) /* else err says why the others may not know */
		freeReplyObject(rep);
}

static bool redis_stopped(struct share *s)
{
	struct rshare *r = (struct rshare *)s;
	if (r->stop)
		return true;
	if (atomic_load(&r->lost)) {
		lease_lost(r);
		return true;
	}
	double t = host_seconds();
	if (t - r->stop_at < CACHE_SECONDS)
		return false;
	r->stop_at = t;
	const char *argv[] = {"EXISTS", KEY_STOP};
	long long v = integer_of(r, command(r, 2, argv, NULL));
	/* An error stops this worker too: it could not tell the others what it found. */
	r->stop = v != 0;
	return r->stop;
}

/* Copy a record field's text into a buffer of cap bytes. */
static void field(char *to, size_t cap, const redisReply *v)
{
	size_t n = (size_t)v->len < cap ? (size_t)v->len : cap - 1;
	memcpy(to, v->str, n);
	to[n] = 0;
}

static int redis_records(struct share *s, struct share_record *out, int max)
{
	struct rshare *r = (struct rshare *)s;
	const char *get[] = {"GET", KEY_NRECORDS};
	redisReply *rep = command(r, 2, get, NULL);
	if (!rep)
		return -1;
	long long n = rep->type == REDIS_REPLY_STRING ? strtoll(rep->str, NULL, 10) : 0;
	freeReplyObject(rep);
	if (n > SHARE_RECORDS_MAX)
		n = SHARE_RECORDS_MAX;
	if (n > max)
		n = max;
	if (n < 0)
		n = 0;
	/* One HMGET per record, all sent before the first reply is read. */
	for (long long i = 1; i <= n; i++) {
		char names[NFIELDS][32];
		const char *argv[2 + NFIELDS] = {"HMGET", KEY_RECORDS};
		for (int f = 0; f < NFIELDS; f++) {
			snprintf(names[f], sizeof(names[f]), "%lld:%s", i, record_fields[f]);
			argv[2 + f] = names[f];
		}
		if (redisAppendCommandArgv(r->c, 2 + NFIELDS, argv, NULL) != REDIS_OK) {
			put_err(s->err, sizeof(s->err), "Redis at %s: out of memory", r->where);
			r->broken = r->stop =
			    true; /* replies of sent commands would be out of step */
			return -1;
		}
	}
	int rc = (int)n;
	for (long long i = 1; i <= n; i++) {
		void *got = NULL;
		if (redisGetReply(r->c, &got) != REDIS_OK)
			got = NULL;
		if (!(rep = checked(r, got))) {
			if (r->broken)
				return -1;
			rc = -1; /* an error reply: read the others, so none is left behind */
			continue;
		}
		bool ok = rep->type == REDIS_REPLY_ARRAY && rep->elements == NFIELDS;
		for (int f = 0; ok && f < NFIELDS; f++)
			ok = rep->element[f]->type == REDIS_REPLY_STRING;
		if (ok && rc >= 0) {
			struct share_record *o = &out[i - 1];
			redisReply **e = rep->element;
			o->finding = e[0]->str[0] == '1';
			o->depth = atoi(e[1]->str);
			field(o->sig, sizeof(o->sig), e[2]);
			field(o->detail, sizeof(o->detail), e[3]);
			field(o->ops, sizeof(o->ops), e[4]);
			field(o->min_ops, sizeof(o->min_ops), e[5]);
			field(o->min_detail, sizeof(o->min_detail), e[6]);
		} else if (!ok) {
			put_err(s->err, sizeof(s->err), "Redis at %s: record %lld is missing",
				r->where, i);
			rc = -1;
		}
		freeReplyObject(rep);
	}
	return rc;
}

static const struct share_ops redis_ops = {
    redis_visit,  redis_put,  redis_take,    redis_hungry,  redis_count,
    redis_record, redis_stop, redis_stopped, redis_records, redis_close,
};

/* ---- starting and joining a run ---- */

/* Delete every key under the prefix: a run of an older build may have
 * used others than this one's. UNLINK frees a large visited set in the
 * server's background. */
static int clear_run(struct rshare *r)
{
	char cursor[32] = "0";
	do {
		const char *scan[] = {"SCAN", cursor, "MATCH", "themis:*", "COUNT", "1000"};
		redisReply *rep = command(r, 6, scan, NULL);
		if (!rep)
			return -1;
		if (rep->type != REDIS_REPLY_ARRAY || rep->elements != 2 ||
		    rep->element[0]->type != REDIS_REPLY_STRING ||
		    rep->element[1]->type != REDIS_REPLY_ARRAY) {
			put_err(r->base.err, sizeof(r->base.err),
				"Redis at %s: unexpected reply to SCAN", r->where);
			freeReplyObject(rep);
			return -1;
		}
		snprintf(cursor, sizeof(cursor), "%s", rep->element[0]->str);
		redisReply *keys = rep->element[1];
		int rc = 0;
		if (keys->elements) {
			const char **argv = malloc(sizeof(*argv) * (keys->elements + 1));
			size_t *lens = malloc(sizeof(*lens) * (keys->elements + 1));
			if (argv && lens) {
				argv[0] = "UNLINK";
				lens[0] = 6;
				for (size_t i = 0; i < keys->elements; i++) {
					argv[i + 1] = keys->element[i]->str;
					lens[i + 1] = (size_t)keys->element[i]->len;
				}
				rc = integer_of(
					 r, command(r, (int)keys->elements + 1, argv, lens)) < 0;
			} else {
				put_err(r->base.err, sizeof(r->base.err), "out of memory");
				rc = -1;
			}
			free(argv);
			free(lens);
		}
		freeReplyObject(rep);
		if (rc)
			return -1;
	} while (strcmp(cursor, "0"));
	return 0;
}

struct share *share_redis_create(const char *url, const char *config, int lease, char *err,
				 size_t errlen)
{
	struct rshare *r = open_url(url, err, errlen);
	if (!r)
		return NULL;
	/* The scan clears what this build does not know of; the script
	 * clears its own keys again atomically (a worker of the old run may
	 * still be writing) and starts the new run. */
	const char *const *keys = run_keys;
	char secs[16];
	snprintf(secs, sizeof(secs), "%d", lease > 0 ? lease : 1);
	const char *args[] = {config, secs};
	redisReply *rep = NULL;
	if (clear_run(r) || !(rep = script(r, S_START, NRUN_KEYS, keys, 2, args, NULL))) {
		put_err(err, errlen, "%s", r->base.err);
		redis_close(&r->base);
		return NULL;
	}
	bool ok = rep->type == REDIS_REPLY_STRING && (size_t)rep->len < sizeof(r->run);
	if (ok)
		memcpy(r->run, rep->str, (size_t)rep->len + 1);
	freeReplyObject(rep);
	r->creator = getpid();
	arrive(r);
	if (!ok) {
		put_err(err, errlen, "Redis at %s: unexpected reply to start", r->where);
		redis_close(&r->base);
		return NULL;
	}
	return &r->base;
}

/* The run's config and id, in one command (both of one run): 1 read, 0 no
 * run there (yet), -1 an error (in err). */
static int read_run(struct rshare *r, char *config, size_t cap, char *err, size_t errlen)
{
	const char *argv[] = {"MGET", KEY_CONFIG, KEY_RUN};
	redisReply *rep = command(r, 3, argv, NULL);
	redisReply *conf = rep && rep->type == REDIS_REPLY_ARRAY && rep->elements == 2
			       ? rep->element[0]
			       : NULL,
		   *run = conf ? rep->element[1] : NULL;
	int rc = -1;
	if (!rep) {
		put_err(err, errlen, "%s", r->base.err);
	} else if (!conf || conf->type != REDIS_REPLY_STRING || run->type != REDIS_REPLY_STRING ||
		   (size_t)run->len >= sizeof(r->run)) {
		rc = 0;
	} else if ((size_t)conf->len >= cap) {
		put_err(err, errlen, "the run at %s has a config of %zu bytes, more than %zu",
			r->where, (size_t)conf->len, cap ? cap - 1 : 0);
	} else {
		memcpy(config, conf->str, (size_t)conf->len);
		config[conf->len] = 0;
		memcpy(r->run, run->str, (size_t)run->len + 1);
		rc = 1;
	}
	if (rep)
		freeReplyObject(rep);
	return rc;
}

struct share *share_redis_join(const char *url, double wait, char *config, size_t cap, char *err,
			       size_t errlen)
{
	struct rshare *r = open_url(url, err, errlen);
	if (!r)
		return NULL;
	double deadline = host_seconds() + wait;
	int got;
	bool said = false;
	while ((got = read_run(r, config, cap, err, errlen)) == 0 && host_seconds() < deadline) {
		if (!said)
			fprintf(stderr,
				"themis: no exploration is running at %s yet; waiting up to "
				"%.0f s for one (--wait)\n",
				r->where, wait);
		said = true;
		usleep(200 * 1000);
	}
	if (got == 1) {
		arrive(r);
		return &r->base;
	}
	if (got == 0 && wait > 0)
		put_err(err, errlen,
			"no exploration started at %s within %.0f s (--wait T waits longer)",
			r->where, wait);
	else if (got == 0)
		put_err(err, errlen, "no exploration is running at %s", r->where);
	redis_close(&r->base);
	return NULL;
}
