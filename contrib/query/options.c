/*
 * options.c - the command line of one orrery-query subcommand, and the
 * options that more than one of them takes.
 *
 * Every subcommand reads its options the same way: getopt_long, --help
 * (usage on stdout, exit 0), an unknown option or a bad value (usage or
 * the message on stderr, exit EXIT_USAGE), then its operands.  Here once,
 * so that the subcommands hold only what their own options mean.
 */
#include <getopt.h>

#include "query.h"

int query_getopt(int argc, char **argv, const struct option *opts,
		 void (*help)(FILE *), query_take_fn take, void *ctx,
		 int operands)
{
	int ch, idx = 0;

	while ((ch = getopt_long(argc, argv, "h", opts, &idx)) != -1) {
		if (ch == 'h') {
			help(stdout);
			return 0;
		}
		if (ch == '?' || ch == ':') {
			help(stderr);
			return EXIT_USAGE;
		}
		/* Short values are unique per subcommand; the long name
		 * tells the options whose value is 0 apart. */
		if (take(ch, ch == 0 ? opts[idx].name : NULL, optarg, ctx) < 0)
			return EXIT_USAGE;
		idx = 0;
	}
	if (operands == QUERY_NO_OPERANDS && optind < argc) {
		qerr("unexpected argument '%s'", argv[optind]);
		return EXIT_USAGE;
	}
	return QUERY_GO;
}

int query_positive(const char *name, const char *arg, uint64_t *out)
{
	if (parse_uint(arg, 1000000, out) || !*out) {
		qerr("--%s '%s': expected a positive whole number", name, arg);
		return -1;
	}
	return 0;
}

void cluster_args_init(struct cluster_args *a)
{
	topo_opts_init(&a->to);
	a->jobs = a->state = NULL;
	a->gpus_per_node = 0;
}

int cluster_opt(struct cluster_args *a, int ch, const char *name,
		const char *arg)
{
	switch (ch) {
	case 0:
		return topo_opt(&a->to, name, arg);
	case 'j':
		a->jobs = arg;
		return 1;
	case 's':
		a->state = arg;
		return 1;
	case 'g':
		return query_positive("gpus-per-node", arg, &a->gpus_per_node) < 0 ? -1 : 1;
	}
	return 0;
}
