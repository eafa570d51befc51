/*
 * conf_check - read an orrery.conf the way select/orrery_cons_tres does at
 * start and reconfigure (orrery_conf_load, then its default_profile through
 * the profile parser), for the bad-input suite.  Prints the message
 * slurmctld puts into its log line and exits 1 when the plugin would run
 * as plain cons_tres (or drop the default profile).
 */
#include <stdio.h>

#include <orrery.h>

#include "orrery_conf.h"

int main(int argc, char **argv)
{
	char err[ORRERY_CONF_ERR_MAX] = "";
	orrery_conf_t c;
	int rc;

	if (argc != 2) {
		fprintf(stderr, "usage: conf_check ORRERY_CONF\n");
		return 2;
	}
	rc = orrery_conf_load(argv[1], &c, err, sizeof(err));
	if (rc < 0) {
		fprintf(stderr, "error: select/orrery: %s; running as plain cons_tres\n", err);
		return 1;
	}
	if (c.default_profile) {
		orrery_profile_t *p = NULL;
		orrery_error_t e = { 0 };

		if (orrery_profile_parse(c.default_profile, &p, &e)) {
			fprintf(stderr, "error: select/orrery: %s: [orrery] default_profile: %s; jobs without --comm-profile are left to cons_tres\n",
				argv[1], e.message);
			orrery_conf_free(&c);
			return 1;
		}
		orrery_profile_free(p);
	}
	printf("mode=%s candidates=%u switches=%zu\n", orrery_mode_name(c.mode),
	       c.candidates, c.n_switches);
	orrery_conf_free(&c);
	return 0;
}
