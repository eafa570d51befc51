// The trace reader takes untrusted files: every malformed line must give an
// error naming the line, never a crash or a silently wrong job.
#include <sstream>
#include <stdexcept>
#include <string>

#include "bridge.hpp"
#include "workload.hpp"

// cmocka last: it defines a fail() macro that clashes with <ios>.
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
extern "C" {
#include <cmocka.h>
}

using namespace sim;

static void test_valid_trace(void **state)
{
	std::istringstream in(
		"arrival_s,nodes,profile,iterations\n"
		"# a comment\n"
		"\n"
		"0,4,resnet50,20000\n"
		"12.5, 2 ,\"gpt2:batch=16,precision=bf16\",5000\n"
		"30,3,\"say \"\"hi\"\"\",9\n");
	auto rows = read_trace(in, "t.csv");
	assert_int_equal(rows.size(), 3);
	assert_true(rows[0].profile == "resnet50");
	assert_int_equal(rows[0].nodes, 4);
	assert_int_equal(rows[0].iterations, 20000);
	assert_true(rows[1].arrival == 12.5);
	assert_int_equal(rows[1].nodes, 2);
	assert_true(rows[1].profile == "gpt2:batch=16,precision=bf16");
	assert_true(rows[2].profile == "say \"hi\"");
	assert_true(rows[0].at.empty());
}

// The optional fifth field pins a job to its nodes (sorted on reading).
static void test_pinned_nodes(void **state)
{
	std::istringstream in(
		"arrival_s,nodes,profile,iterations,at\n"
		"0,2,resnet50,10,3+0\n"
		"0,2,resnet50,10,\n");
	auto rows = read_trace(in, "t.csv");
	assert_int_equal(rows.size(), 2);
	assert_int_equal(rows[0].at.size(), 2);
	assert_int_equal(rows[0].at[0], 0);
	assert_int_equal(rows[0].at[1], 3);
	assert_true(rows[1].at.empty());
}

// The error names the file and line, and the message contains `needle`.
static void expect_error(const std::string &text, const std::string &needle)
{
	std::istringstream in(text);
	try {
		read_trace(in, "bad.csv");
	} catch (const std::runtime_error &e) {
		std::string m = e.what();
		if (m.find("bad.csv:") == std::string::npos ||
		    m.find(needle) == std::string::npos) {
			print_error("message '%s' lacks '%s'\n", m.c_str(),
				    needle.c_str());
			fail();
		}
		return;
	}
	print_error("no error for '%s'\n", text.c_str());
	fail();
}

static void test_bad_traces(void **state)
{
	expect_error("0,4,gpt2:batch=16,precision=bf16,10\n", "iterations");
	expect_error("0,4,resnet50\n", "expected 4 to 8 fields");
	expect_error("0,4,resnet50,10,,1,60,1,x\n", "expected 4 to 8 fields");
	expect_error("0,2,resnet50,10,0+1+2\n", "2 distinct node indices");
	expect_error("0,2,resnet50,10,1+1\n", "2 distinct node indices");
	expect_error("0,2,resnet50,10,0+x\n", "at");
	expect_error("0,2,resnet50,10,0+-1\n", "node indices (0-based)");
	expect_error("x,4,resnet50,10\n", "arrival_s");
	expect_error("-1,4,resnet50,10\n", "arrival_s must be >= 0");
	expect_error("0,0,resnet50,10\n", "nodes must be");
	expect_error("0,2.5,resnet50,10\n", "nodes must be");
	expect_error("0,4,resnet50,0\n", "iterations");
	expect_error("0,4,resnet50,1e12\n", "iterations");
	expect_error("0,4,\"resnet50,10\n", "unterminated quote");
	expect_error("0,4,,10\n", "empty profile");
	expect_error("0,4,resnet50,nan\n", "iterations");
	expect_error(std::string(kTraceMaxLine + 1, 'x') + "\n", "longer than");
	// The line number counts comments and blank lines.
	expect_error("# c\n\n0,4,resnet50,10\n0,4,resnet50\n", "bad.csv:4");
}

static void test_mix(void **state)
{
	auto m = parse_mix("2:30, 4:70,resnet50:batch=256,gpt2", "sizes");
	assert_int_equal(m.size(), 4);
	assert_true(m[0].value == "2" && m[0].weight == 30);
	assert_true(m[1].value == "4" && m[1].weight == 70);
	assert_true(m[2].value == "resnet50:batch=256" && m[2].weight == 1);
	assert_true(m[3].value == "gpt2" && m[3].weight == 1);
	bool threw = false;
	try {
		parse_mix("2:0", "sizes");
	} catch (const std::runtime_error &) {
		threw = true;
	}
	assert_true(threw);
}

// --seeds N must give N independent workloads.  The generator once took
// the seed as its splitmix64 state, which only advances by a constant:
// seed s + 1 was seed s's stream one draw later, and with four draws per
// job, seed s + 4 was seed s less its first job.  Any two of 8 seeds must
// now share few jobs (same size, model and iteration count; by chance
// with 13 models, 6 sizes and log-uniform durations: almost none).
static void test_seeds_independent(void **state)
{
	(void)state;
	Scenario sc = scenario("testbed");
	ProfileTable profiles{sc.gpus_per_node, sc.fabric.node_link_mbps};
	std::vector<std::vector<TraceRow>> w;
	for (uint64_t seed = 1; seed <= 8; seed++) {
		GeneratorOptions o = sc.gen;
		o.seed = seed;
		w.push_back(generate(o, sc.fabric.leaves * sc.fabric.nodes_per_leaf, profiles));
		assert_true(w.back().size() > 20);
	}
	for (size_t a = 0; a < w.size(); a++)
		for (size_t b = a + 1; b < w.size(); b++) {
			size_t same = 0;
			for (const TraceRow &x : w[a])
				for (const TraceRow &y : w[b])
					if (x.nodes == y.nodes && x.profile == y.profile &&
					    x.iterations == y.iterations) {
						same++;
						break;
					}
			if (same * 10 > w[a].size())
				fail_msg("seeds %zu and %zu share %zu of %zu jobs", a + 1, b + 1,
					 same, w[a].size());
		}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid_trace),
		cmocka_unit_test(test_bad_traces),
		cmocka_unit_test(test_pinned_nodes),
		cmocka_unit_test(test_mix),
		cmocka_unit_test(test_seeds_independent),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
