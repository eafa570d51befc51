/*
 * profile_file - captured-profile files (GLib key-file, orrery-profile(7))
 * through orrery_profile_load_data, the same code orrery_profile_load_file
 * runs after reading the file as the submitting user.
 *
 * Oracle: an accepted file is an explicit profile within the documented
 * limits whose canonical form parses back to an equal profile, and that
 * survives a save/load round trip.
 */
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>

#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	orrery_profile_t *p = NULL, *again = NULL;
	orrery_error_t err;
	char *canon;
	int rc;

	memset(&err, 0, sizeof(err));
	rc = orrery_profile_load_data((const char *)data, size, &p, &err);
	if (rc != ORRERY_OK) {
		fuzz_check_error(rc, &err);
		FUZZ_CHECK(p == NULL, "object left behind on error");
		return 0;
	}
	FUZZ_CHECK(orrery_profile_phase_count(p) <= ORRERY_MAX_PHASES, "phases");
	canon = orrery_profile_canonical(p);
	FUZZ_CHECK(canon != NULL, "no canonical form");
	rc = orrery_profile_parse(canon, &again, &err);
	FUZZ_CHECK(rc == ORRERY_OK, "canonical '%s' does not parse: %s", canon,
		   err.message);
	FUZZ_CHECK(orrery_profile_equal(p, again), "'%s' reparses differently",
		   canon);
	orrery_profile_free(again);
	again = NULL;

	/* Explicit profiles round-trip through a file. */
	if (!orrery_profile_is_model(p)) {
		char path[] = "/tmp/orrery-fuzz-profile.XXXXXX";
		int fd = mkstemp(path);

		FUZZ_CHECK(fd >= 0, "mkstemp");
		close(fd);
		rc = orrery_profile_save_file(p, path, "fuzz", &err);
		FUZZ_CHECK(rc == ORRERY_OK, "save: %s", err.message);
		rc = orrery_profile_load_file(path, &again, &err);
		FUZZ_CHECK(rc == ORRERY_OK, "reload: %s", err.message);
		FUZZ_CHECK(orrery_profile_equal(p, again), "save/load differs");
		unlink(path);
	}
	orrery_profile_free(again);
	orrery_free(canon);
	orrery_profile_free(p);
	return 0;
}
