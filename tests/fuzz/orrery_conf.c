/*
 * orrery_conf - orrery.conf, read by slurmctld (select/orrery_cons_tres)
 * at start and reconfigure.  A parse error must leave the defaults and one
 * message line; an accepted file must hold values in their documented
 * ranges.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "orrery_conf.h"

#define CHECK(cond) do { if (!(cond)) { \
	fprintf(stderr, "fuzz check failed: %s\n", #cond); abort(); } } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	orrery_conf_t c;
	char err[ORRERY_CONF_ERR_MAX];
	int rc = orrery_conf_parse((const char *)data, size, "orrery.conf", &c,
				   err, sizeof(err));

	if (rc) {
		CHECK(rc == -1);
		CHECK(err[0] != '\0');
		CHECK(strlen(err) < sizeof(err));
		CHECK(c.n_switches == 0 && !c.switches && !c.default_profile);
		CHECK(c.mode == ORRERY_MODE_ENFORCE && c.candidates == 64);
		return 0;
	}
	CHECK(c.mode <= ORRERY_MODE_ENFORCE);
	CHECK(c.candidates >= 1 && c.candidates <= ORRERY_CONF_MAX_CANDIDATES);
	CHECK(c.n_switches <= ORRERY_CONF_MAX_SWITCHES);
	CHECK(!c.default_profile || strlen(c.default_profile) <= 4096);
	CHECK(c.linkspeed_unit_mbps >= 1 && c.linkspeed_unit_mbps <= 1000000000ULL);
	for (size_t i = 0; i < c.n_switches; i++) {
		CHECK(c.switches[i].name && *c.switches[i].name);
		CHECK(c.switches[i].uplink_mbps >= 1);
	}
	orrery_conf_free(&c);
	return 0;
}
