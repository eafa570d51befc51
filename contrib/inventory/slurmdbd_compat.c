/*
 * slurmdbd_compat.c - slurmdbd_msg_type_2_str for programs that use
 * libslurm's slurmdb API (orrery-counters-publish).
 *
 * Why: Slurm's accounting_storage/slurmdbd plugin, which libslurm loads
 * for every slurmdb_*() call, names a message type in some of its error
 * paths (a connection to slurmdbd dropped mid-call) with this function,
 * but only libslurmfull defines it, not the public libslurm (Debian 12,
 * Slurm 22.05): the first such error killed the publisher with "symbol
 * lookup error".  Exported from the executable (the link's dynamic list),
 * this definition is what the plugin binds to; it is never reached when
 * the process has libslurmfull.
 */
#include <stdio.h>

char *slurmdbd_msg_type_2_str(int msg_type, int get_enum);

char *slurmdbd_msg_type_2_str(int msg_type, int get_enum)
{
	static __thread char buf[32];

	(void) get_enum;
	snprintf(buf, sizeof(buf), "DBD message %d", msg_type);
	return buf;
}
