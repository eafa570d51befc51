/*
 * orrery-query - offline queries against liborrery, in the spirit of
 * flux-sched's resource-query: validate comm profiles, score jobs sharing
 * a link, inspect or generate topologies, place a job among running ones
 * and re-solve shifts.  See orrery-query(1).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "query.h"

const char *qcmd = NULL;

void qerr(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "orrery-query: ");
	if (qcmd)
		fprintf(stderr, "%s: ", qcmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static const struct {
	const char *name;
	int (*fn)(int, char **);
	const char *summary;
} commands[] = {
	{ "profile", cmd_profile, "validate a comm profile, show its Up/Down phases" },
	{ "score", cmd_score, "best rotations of profiles sharing one link" },
	{ "topology", cmd_topology, "summarise a topology.conf or generate a fabric" },
	{ "place", cmd_place, "rank node sets for a new job among running jobs" },
	{ "solve", cmd_solve, "re-solve the shifts of all running jobs" },
};

static void usage(FILE *out)
{
	fprintf(out, "Usage: orrery-query COMMAND [OPTIONS] [ARGS]\n\nCommands:\n");
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fprintf(out, "\n'orrery-query COMMAND --help' shows a command's options; "
		     "see orrery-query(1).\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("orrery-query (orrery) %s\n", orrery_version());
		return 0;
	}
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
		if (!strcmp(argv[1], commands[i].name)) {
			qcmd = commands[i].name;
			return commands[i].fn(argc - 1, argv + 1);
		}
	}
	qerr("unknown command '%s'", argv[1]);
	usage(stderr);
	return EXIT_USAGE;
}
