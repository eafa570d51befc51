/*
 * test_locality.c - RDMA ports through the ops interface (a fake verbs
 * layer, the sysfs layer on recorded trees), link-rate arithmetic, and GPU
 * / NIC PCIe locality on recorded hwloc XML topologies.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "locality.h"
#include "rdma.h"

#define DATA(p) TOP_SRCDIR "/tests/data/" p

/* ---- a fake verbs layer: two HCAs, one dual-port with a port down ---- */
struct fake_port { const char *dev; unsigned port; struct inv_port_attr a; };
static const struct fake_port fake[] = {
	{ "mlx5_0", 1, { 1, INV_LL_INFINIBAND, 128, 2, 0 } },	/* 4X NDR */
	{ "mlx5_1", 1, { 1, INV_LL_ETHERNET, 64, 2, 0 } },	/* 4X HDR */
	{ "mlx5_1", 2, { 0, INV_LL_ETHERNET, 64, 2, 0 } },	/* down   */
};
static int fake_fail;

static int fake_devices(void *ctx, char (*names)[INV_DEV_NAME], int max)
{
	if (fake_fail)
		return -1;
	strcpy(names[0], "mlx5_0");
	strcpy(names[1], "mlx5_1");
	return 2;
}

static int fake_port_count(void *ctx, const char *dev)
{
	return strcmp(dev, "mlx5_1") == 0 ? 2 : 1;
}

static int fake_query(void *ctx, const char *dev, unsigned port,
		      struct inv_port_attr *a)
{
	for (size_t i = 0; i < sizeof(fake) / sizeof(fake[0]); i++)
		if (strcmp(fake[i].dev, dev) == 0 && fake[i].port == port) {
			*a = fake[i].a;
			return 0;
		}
	return -1;
}

static void test_fake_verbs(void **state)
{
	struct inv_rdma_ops ops = { "fake", fake_devices, fake_port_count, fake_query, NULL };
	struct inv_rdma_port p[8];
	char err[128];

	assert_int_equal(inv_rdma_list(&ops, p, 8, err, sizeof(err)), 3);
	assert_string_equal(p[0].dev, "mlx5_0");
	assert_int_equal(p[0].rate_mbps, 400000);	/* 4 x 100G */
	assert_int_equal(p[0].layer, INV_LL_INFINIBAND);
	assert_int_equal(p[1].rate_mbps, 200000);	/* 4 x 50G */
	assert_int_equal(p[1].layer, INV_LL_ETHERNET);
	assert_int_equal(p[2].port, 2);
	assert_false(p[2].active);
	assert_int_equal(p[2].rate_mbps, 0);		/* down: no rate */
	fake_fail = 1;
	assert_int_equal(inv_rdma_list(&ops, p, 8, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "fake"));
	fake_fail = 0;
}

static void test_rate_arithmetic(void **state)
{
	uint64_t m;

	/* speed code x width code, as ibv_query_port reports them. */
	assert_int_equal(inv_speed_lane_mbps(32) * inv_width_lanes(2), 100000);	/* 4X EDR */
	assert_int_equal(inv_speed_lane_mbps(16) * inv_width_lanes(2), 56000);	/* 4X FDR */
	assert_int_equal(inv_speed_lane_mbps(64) * inv_width_lanes(16), 100000);	/* 2X HDR */
	assert_int_equal(inv_speed_lane_mbps(1) * inv_width_lanes(1), 2500);	/* 1X SDR */
	assert_int_equal(inv_speed_lane_mbps(3), 0);
	assert_int_equal(inv_width_lanes(3), 0);
	assert_int_equal(inv_parse_sysfs_rate("400 Gb/sec (4X NDR)", &m), 0);
	assert_int_equal(m, 400000);
	assert_int_equal(inv_parse_sysfs_rate("2.5 Gb/sec (1X SDR)", &m), 0);
	assert_int_equal(m, 2500);
	assert_int_equal(inv_parse_sysfs_rate("fast", &m), -1);
	assert_int_equal(inv_parse_sysfs_rate("400 Mb/sec", &m), -1);
}

static void test_sysfs_recorded(void **state)
{
	struct inv_rdma_ops ops;
	struct inv_rdma_port p[32];
	struct inv_netdev nd[16];
	char err[256];
	int n;

	inv_rdma_sysfs_ops(&ops, DATA("sysfs/dgx8"));
	n = inv_rdma_list(&ops, p, 32, err, sizeof(err));
	assert_int_equal(n, 10);
	/* Natural order: mlx5_9 before mlx5_10 would be; mlx5_0 first. */
	assert_string_equal(p[0].dev, "mlx5_0");
	for (int i = 0; i < 8; i++) {
		assert_int_equal(p[i].rate_mbps, 400000);
		assert_int_equal(p[i].layer, INV_LL_INFINIBAND);
		assert_true(p[i].active);
	}
	assert_string_equal(p[8].dev, "mlx5_8");
	assert_int_equal(p[8].layer, INV_LL_ETHERNET);
	assert_int_equal(p[8].rate_mbps, 200000);
	assert_false(p[9].active);
	assert_int_equal(p[9].rate_mbps, 0);

	n = inv_netdev_list(DATA("sysfs/gpu4"), nd, 16, err, sizeof(err));
	assert_int_equal(n, 2);		/* lo left out */
	assert_string_equal(nd[0].name, "eno1");
	assert_int_equal(nd[0].speed_mbps, 25000);
	assert_string_equal(nd[1].name, "ens1f0np0");
	assert_int_equal(nd[1].speed_mbps, 100000);
	n = inv_netdev_list(DATA("sysfs/dgx8"), nd, 16, err, sizeof(err));
	assert_int_equal(n, 3);
	assert_string_equal(nd[0].name, "eno1");
	assert_false(nd[0].up);
	assert_int_equal(nd[0].speed_mbps, 0);	/* "-1" when down */

	inv_rdma_sysfs_ops(&ops, DATA("sysfs/none"));
	assert_int_equal(inv_rdma_list(&ops, p, 32, err, sizeof(err)), -1);
}

static void test_dgx8_locality(void **state)
{
	struct inv_topo *t;
	char err[256];
	size_t nics[16];
	unsigned gpus[8];

	assert_int_equal(inv_topo_load(DATA("hwloc/dgx8.xml"), &t, err, sizeof(err)), 0);
	assert_int_equal(inv_topo_gpu_count(t), 8);
	assert_int_equal(inv_topo_nic_count(t), 10);
	assert_string_equal(inv_topo_gpu(t, 0)->busid, "0000:1a:00.0");
	assert_string_equal(inv_topo_gpu(t, 7)->busid, "0000:dd:00.0");
	assert_int_equal(inv_topo_gpu(t, 0)->numa, 0);
	assert_int_equal(inv_topo_gpu(t, 4)->numa, 1);
	assert_string_equal(inv_topo_gpu(t, 0)->cores, "0-3");
	assert_string_equal(inv_topo_gpu(t, 5)->cores, "4-7");
	/* Each GPU shares a PCIe switch with exactly one HCA: GPU i - mlx5_i. */
	for (unsigned g = 0; g < 8; g++) {
		char want[16];
		size_t n;

		snprintf(want, sizeof(want), "mlx5_%u", g);
		gpus[0] = g;
		n = inv_nearest_nics(t, gpus, 1, nics, 16);
		assert_int_equal(n, 1);
		assert_int_equal(inv_topo_near(t, g, nics[0]), INV_NEAR_SWITCH);
		assert_string_equal(inv_topo_nic(t, nics[0])->name, want);
	}
	/* GPU 0 to mlx5_1 (other switch, same socket), to mlx5_4 (other socket). */
	assert_int_equal(inv_topo_near(t, 0, 1), INV_NEAR_NUMA);
	assert_int_equal(inv_topo_near(t, 0, 4), INV_NEAR_SYS);
	/* A job on GPUs 2 and 5 gets their two HCAs, in GPU order. */
	gpus[0] = 5;
	gpus[1] = 2;
	assert_int_equal(inv_nearest_nics(t, gpus, 2, nics, 16), 2);
	assert_string_equal(inv_topo_nic(t, nics[0])->name, "mlx5_5");
	assert_string_equal(inv_topo_nic(t, nics[1])->name, "mlx5_2");
	assert_string_equal(inv_topo_nic(t, nics[0])->netdev, "ibp174s0");
	assert_int_equal(inv_topo_nic(t, nics[0])->active_port, 1);
	/* mlx5_9's only port is down. */
	assert_int_equal(inv_topo_nic(t, 9)->active_port, -1);
	/* Invalid GPU index: nothing. */
	gpus[0] = 8;
	assert_int_equal(inv_nearest_nics(t, gpus, 1, nics, 16), 0);
	inv_topo_free(t);
}

static void test_gpu4_locality(void **state)
{
	struct inv_topo *t;
	char err[256];
	size_t nics[4];
	unsigned gpus[4] = { 0, 1, 2, 3 };

	assert_int_equal(inv_topo_load(DATA("hwloc/gpu4.xml"), &t, err, sizeof(err)), 0);
	assert_int_equal(inv_topo_gpu_count(t), 4);
	assert_int_equal(inv_topo_nic_count(t), 1);
	assert_string_equal(inv_topo_nic(t, 0)->name, "mlx5_0");
	assert_string_equal(inv_topo_nic(t, 0)->netdev, "ens1f0np0");
	assert_int_equal(inv_topo_near(t, 1, 0), INV_NEAR_SWITCH);
	assert_int_equal(inv_topo_near(t, 0, 0), INV_NEAR_NUMA);
	assert_int_equal(inv_topo_near(t, 2, 0), INV_NEAR_SYS);
	assert_int_equal(inv_topo_near(t, 3, 0), INV_NEAR_SYS);
	/* The only NIC is the nearest of every GPU, however far. */
	for (unsigned g = 0; g < 4; g++) {
		assert_int_equal(inv_nearest_nics(t, &gpus[g], 1, nics, 4), 1);
		assert_int_equal(nics[0], 0);
	}
	assert_int_equal(inv_nearest_nics(t, gpus, 4, nics, 4), 1);
	inv_topo_free(t);
}

static void test_bad_xml(void **state)
{
	struct inv_topo *t;
	char err[256];

	assert_int_equal(inv_topo_load(DATA("sysfs/gpu4/class/net/eno1/speed"), &t,
				       err, sizeof(err)), -1);
	assert_non_null(strstr(err, "speed"));
	assert_null(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fake_verbs),
		cmocka_unit_test(test_rate_arithmetic),
		cmocka_unit_test(test_sysfs_recorded),
		cmocka_unit_test(test_dgx8_locality),
		cmocka_unit_test(test_gpu4_locality),
		cmocka_unit_test(test_bad_xml),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
