/*
 * place_cache.h - per-job memory of select/orrery_cons_tres between
 * job_test calls: the job's parsed comm profile and the last ranking of
 * candidate node sets with what cons_tres made of it.
 *
 * A pending job is tested on every scheduling pass, mostly with nothing
 * changed; parsing its profile and ranking candidates again each time
 * was most of orrery's cost in job_test.  An entry lives from the job's
 * first profiled job_test to its job_fini; entries of jobs that never
 * ran (cancelled while pending) are dropped by orr_cache_sweep() or, as
 * the last bound, by least-recently-used eviction at `cap' entries.
 *
 * Plain C and GLib, no Slurm: node sets are Slurm node indices, profiles
 * are opaque and freed with the callback given at creation.
 */
#ifndef ORRERY_PLACE_CACHE_H
#define ORRERY_PLACE_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* Candidates kept per ranking: those handed to cons_tres before the
 * unnarrowed bitmap. */
#define ORR_CACHE_MAX_CANDS 4

/* outcome of a ranking, once cons_tres has seen it */
#define ORR_OUTCOME_UNKNOWN (-1)

typedef struct orr_cand {
	uint32_t *nodes;	/* Slurm node indices */
	uint32_t n;
	double score_min, score_mean;
	double cost;		/* predicted slowdown caused; < 0: none */
	double hold_cost;	/* of it, what neighbours cause (hold=) */
	int64_t shift_us;
} orr_cand_t;

/* The key a ranking is valid for.  `version' is the caller's cluster
 * state version (bumped by every allocation and topology change); the
 * hashes cover the candidate bitmap and what else cons_tres's answer
 * depends on. */
typedef struct orr_rank_key {
	uint64_t version;
	uint64_t bitmap_hash;
	uint64_t req_hash;	/* exc_core_bitmap, job size */
	uint32_t min_nodes;
} orr_rank_key_t;

typedef struct orr_entry {
	uint32_t job_id;
	char *spec;		/* the profile text the entry is for */
	void *parsed;		/* NULL with parse_failed: reported once */
	bool parse_failed;
	void *resolved;		/* parsed, resolved for resolved_nodes */
	uint32_t resolved_nodes;
	uint64_t resolved_version;
	/* Why orrery did not choose this job's nodes at its last run-now
	 * test ("option:contiguous", "candidates_refused", ...; "" when it
	 * did): kept past the ranking for the job's accounting record. */
	char fallback[40];
	/* When admission (hold=) first held the job; 0: not held since it
	 * last started.  Its ORR1: record carries the wait (held_s). */
	time_t held_since;
	/* While held: when its hold ends at the latest (eligible +
	 * hold's SECONDS), the start backfill plans it for (plan_held). */
	time_t clear_at;

	bool ranked;
	orr_rank_key_t key;
	size_t n_total;		/* candidates the ranking had */
	size_t n_cand;		/* kept in cand[] */
	orr_cand_t cand[ORR_CACHE_MAX_CANDS];
	/* First candidate not yet refused by cons_tres under `key':
	 * ORR_OUTCOME_UNKNOWN before any try, n_cand when all were. */
	int outcome;

	uint64_t last_use;	/* LRU tick */
} orr_entry_t;

typedef struct orr_cache orr_cache_t;
typedef void (*orr_free_fn)(void *);

typedef struct orr_cache_stats {
	size_t live;		/* entries now */
	uint64_t created, dropped, evicted;
} orr_cache_stats_t;

/* NULL only when out of memory. */
orr_cache_t *orr_cache_new(size_t cap, orr_free_fn free_profile);
void orr_cache_free(orr_cache_t *c);

/*
 * The entry of job_id for profile text `spec', created if there is none.
 * An entry made for another text (scontrol update of the job's
 * environment, a requeue) is reset first.  *created says whether the
 * caller must fill parsed/parse_failed.  NULL only when out of memory.
 */
orr_entry_t *orr_cache_get(orr_cache_t *c, uint32_t job_id, const char *spec,
			   bool *created);

/* The entry of job_id, or NULL; neither created nor counted as a use. */
orr_entry_t *orr_cache_find(orr_cache_t *c, uint32_t job_id);

/* Forget the ranking (and its outcome) of e. */
void orr_cache_unrank(orr_cache_t *c, orr_entry_t *e);
/* Store a ranking of at most ORR_CACHE_MAX_CANDS candidates (copied). */
bool orr_cache_set_ranking(orr_cache_t *c, orr_entry_t *e,
			   const orr_rank_key_t *key, size_t n_total,
			   const orr_cand_t *cands, size_t n);
bool orr_key_equal(const orr_rank_key_t *a, const orr_rank_key_t *b);

void orr_cache_drop(orr_cache_t *c, uint32_t job_id);
/* Drop every entry for which gone(job_id, arg) is true. */
size_t orr_cache_sweep(orr_cache_t *c, bool (*gone)(uint32_t, void *),
		       void *arg);
void orr_cache_stats(const orr_cache_t *c, orr_cache_stats_t *s);

/* FNV-1a, for the caller's key hashes. */
uint64_t orr_hash_bytes(uint64_t h, const void *p, size_t n);
#define ORR_HASH_INIT 0xcbf29ce484222325ull

#endif /* ORRERY_PLACE_CACHE_H */
