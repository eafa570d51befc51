/*
 * orrery_conf.h - orrery.conf, the select plugin's own settings.
 *
 * A GLib key-file beside slurm.conf (doc/orrery.conf.5).  This parser has
 * no Slurm dependency so that it can be unit-tested on its own; the
 * plugin turns a parse error into one log line and pass-through mode.
 */
#ifndef ORRERY_CONF_H
#define ORRERY_CONF_H

#include <stddef.h>
#include <stdint.h>

#define ORRERY_CONF_FILE_MAX     (256 * 1024)	/* bytes */
#define ORRERY_CONF_MAX_LEVELS   16		/* level0 .. level15 */
#define ORRERY_CONF_MAX_SWITCHES 65536
#define ORRERY_CONF_MAX_CANDIDATES 4096
#define ORRERY_CONF_MAX_CHANNEL_LEAD_MS 60000
#define ORRERY_CONF_DEFAULT_CHANNEL_LEAD_MS 2000
#define ORRERY_CONF_MAX_RANK_SPREAD 4		/* = ORRERY_RANK_SPREAD_MAX */
#define ORRERY_CONF_DEFAULT_RANK_SPREAD 0	/* = ORRERY_RANK_SPREAD_DEFAULT */
#define ORRERY_CONF_MAX_HOLD_S   604800	/* hold=COST,SECONDS: a week */
#define ORRERY_CONF_MAX_LEARN    0.5	/* learn=TOL: half the period */
#define ORRERY_CONF_MAX_HOLD_COST 100.0
#define ORRERY_CONF_MAX_ERRORS   16		/* reported per load */
#define ORRERY_CONF_ERR_MAX      (ORRERY_CONF_MAX_ERRORS * 320)

typedef enum orrery_mode {
	ORRERY_MODE_OFF = 0,	/* plain cons_tres                         */
	ORRERY_MODE_ADVISE,	/* compute and log placements, don't narrow */
	ORRERY_MODE_ENFORCE,	/* narrow cons_tres's choice                */
} orrery_mode_t;

#define ORRERY_CONF_MAX_LINKS    1024		/* uplink=KxRATE: K      */
#define ORRERY_CONF_MAX_FLOWS    4096		/* flows=                */

typedef struct orrery_conf_switch {
	char *name;
	uint64_t uplink_mbps;		/* aggregate of uplink_links    */
	uint32_t uplink_links;		/* parallel links (ECMP), >= 1  */
} orrery_conf_switch_t;

typedef struct orrery_conf {
	orrery_mode_t mode;
	uint32_t candidates;		/* placement candidates scored   */
	/* Contention-aware ranking: extra leaves / switch levels a profiled
	 * job may be spread to when that is predicted to pay; 0: locality
	 * first, always (doc/orrery.conf.5). */
	uint32_t rank_spread;
	/* Admission (hold=COST,SECONDS; doc/orrery.conf.5): a profiled job
	 * whose placement is predicted to add more than hold_cost jobs of
	 * slowdown waits, up to hold_max_s after it became eligible; 0:
	 * never (hold=off, the default). */
	double hold_cost;
	uint32_t hold_max_s;
	char *default_profile;		/* NULL: jobs without one untouched */
	int debug;
	/* Live channel (select-orrery(8), CHANNEL): how far ahead of now a
	 * re-alignment takes effect, ms; 0 turns the channel off. */
	uint32_t channel_lead_ms;
	/* Learning the period (learn=TOL; select-orrery(8), LEARNING THE
	 * PERIOD): a running job measured more than TOL (a fraction) off
	 * the period it is modelled with is modelled at its measurement and
	 * its link group re-solved; 0: off (the default).  Needs the live
	 * channel. */
	double learn_tol;
	uint64_t node_link_mbps;	/* 0: liborrery's default        */
	uint64_t linkspeed_unit_mbps;	/* topology.conf LinkSpeed unit  */
	uint64_t level_uplink_mbps[ORRERY_CONF_MAX_LEVELS]; /* 0: unset */
	uint32_t level_uplink_links[ORRERY_CONF_MAX_LEVELS]; /* 0: unset */
	uint32_t flows;			/* per job per uplink; 0: liborrery's */
	size_t n_switches;
	orrery_conf_switch_t *switches;	/* [switch.<name>] uplink=       */
} orrery_conf_t;

/* Defaults: mode=enforce, candidates=64, rank_spread=0,
 * linkspeed_unit=1Gbps, channel_lead_ms=2000. */
void orrery_conf_init(orrery_conf_t *c);
void orrery_conf_free(orrery_conf_t *c);	/* back to defaults */

/*
 * Parse a buffer / read a file.  On error return -1, leave *c at its
 * defaults and put into err one line per error (up to
 * ORRERY_CONF_MAX_ERRORS, then "(N more errors)"), each naming the file,
 * group, key and what is accepted, separated by '\n'.  Not reentrant
 * (slurmctld calls it under the plugin's lock).  A missing file is not an error for
 * orrery_conf_load: it returns 1 with the defaults (err says so).
 */
int orrery_conf_parse(const char *data, size_t len, const char *name,
		      orrery_conf_t *c, char *err, size_t errlen);
int orrery_conf_load(const char *path, orrery_conf_t *c, char *err,
		     size_t errlen);

/* "100Gbps", "400 Mbps", "1.6Tbps", "25Gb/s" -> Mbit/s.  0 on success. */
int orrery_conf_parse_rate(const char *s, uint64_t *mbps);
/* An uplink: a rate (one link) or KxRATE, K parallel links of RATE each
 * ("8x400Gbps": *links = 8, *mbps = the aggregate, 3200000).  K is
 * 1..ORRERY_CONF_MAX_LINKS.  0 on success. */
int orrery_conf_parse_uplink(const char *s, uint64_t *mbps, uint32_t *links);

const char *orrery_mode_name(orrery_mode_t m);

/* Path of orrery.conf for a given slurm.conf path (same directory). */
char *orrery_conf_path(const char *slurm_conf);	/* malloc()ed */

#endif /* ORRERY_CONF_H */
