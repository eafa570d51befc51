// The model catalogue: named training workloads whose communication
// pattern is derived from a job's shape (nodes, GPUs per node, NIC rate).
// The derivation, its assumptions and a worked example are in
// doc/orrery-profile.7; keep the two in step.
//
// Sources of the numbers below:
//  - CNN parameter counts and forward cost: torchvision model docs
//    (pytorch.org/vision/stable/models.html, "Params" and "GFLOPS"
//    columns; that GFLOPS column counts multiply-adds, so FLOPs = 2 x it).
//  - Transformer parameter counts: Hugging Face model cards and
//    shared/notes/models.md; training FLOPs = 6 x params x tokens
//    (Kaplan et al. 2020, "Scaling Laws for Neural Language Models", 2.1;
//    Narayanan et al. SC'21, Megatron-LM, appendix), attention ignored.
//  - CNN training FLOPs = 3 x forward (backward = 2 x forward).
//  - DLRM: MLPerf Training DLRM (Criteo 1TB) configuration, bottom MLP
//    13-512-256-128, top MLP 479-1024-1024-512-256-1, 26 tables of dim
//    128 (github.com/facebookresearch/dlrm, MLPerf reference).
//  - Mixtral 8x7B: Jiang et al. 2024, "Mixtral of Experts"
//    (arXiv:2401.04088: 8 experts, top-2 routing, 46.7 B total and 12.9 B
//    active parameters) and its Hugging Face config.json
//    (mistralai/Mixtral-8x7B-v0.1: hidden_size 4096, intermediate_size
//    14336, num_hidden_layers 32, num_local_experts 8,
//    num_experts_per_tok 2).  Expert parameters 32 layers x 8 experts x
//    3 x 4096 x 14336 = 45,097,156,608; the rest (attention, embeddings,
//    norms, routers) 1,605,636,096 of the 46,702,792,704; active per
//    token: the rest + 2 of 8 experts = 12,879,925,248.  Expert-parallel
//    all-to-all: dispatch and combine per MoE layer, forward and backward
//    (GShard, Lepikhin et al. 2020; Megatron-LM's MoE layer).
//  - LLaMA-2 7B / 70B: Touvron et al. 2023 (6.74 B, hidden 4096; 68.98 B,
//    hidden 8192, seq 4096).  GPT-3 175B and GPT-3 XL 1.3B: Brown et al.
//    2020, table 2.1 (hidden 12288, seq 2048).
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "profile/profile.hpp"
#include "profile/units.hpp"

namespace orrery {

enum class Kind {
	Cnn,          // data-parallel, 3 x forward FLOPs per sample
	Transformer,  // data-parallel, 6 x params x seq FLOPs per sample
	Llm,          // tensor/pipeline/data parallel, 6 x params x seq
	Dlrm,         // embedding all-to-all + MLP all-reduce
	Moe,          // expert-parallel all-to-all + data-parallel all-reduce
};

// Mixture-of-experts layout of a Kind::Moe entry (by name below).
struct MoeShape {
	unsigned layers;       // MoE layers (every layer for Mixtral)
	unsigned experts;      // experts per MoE layer
	unsigned topk;         // experts each token is routed to
	double expert_params;  // all experts of all layers
	double active_params;  // per token: non-expert + topk experts
	unsigned ep;           // default expert-parallel degree
};

struct CatalogueEntry {
	std::string name;
	Kind kind;
	const char *desc;
	double params;        // trained parameters (all-reduced ones for DLRM)
	double fwd_flops;     // Cnn/Dlrm: forward FLOPs per sample
	unsigned batch;       // default per-GPU batch (Llm: per replica)
	unsigned seq;         // default sequence length (0: none)
	const char *precision;
	unsigned hidden;      // Llm: hidden size; Dlrm: embedding dim
	unsigned tables;      // Dlrm: embedding tables
	unsigned tp, pp;      // Llm defaults
	std::string summary;  // filled in on first use
};

namespace {

// Effective training throughput per GPU, TFLOP/s, by precision: what
// well-tuned training reaches end to end (model FLOPs / time), not the
// data-sheet peak.  Peaks (dense): V100 15.7 fp32 / 125 fp16 tensor;
// A100 19.5 fp32, 156 TF32 / 312 fp16,bf16; H100 SXM 67 fp32, 494 TF32 /
// 989 fp16,bf16.  fp32 training uses TF32 tensor cores on A100/H100
// (PyTorch's default for convolutions).  The effective figures are
// 25-40% of peak, the usual model-FLOPs utilisation of data-parallel
// training (e.g. Megatron-LM reports 36-52% on A100 for large GPTs;
// ResNet-50 reaches ~25% of peak).  0 = not supported (no bf16 on V100).
struct GpuRate {
	const char *name;
	double fp32, fp16, bf16;
};
const GpuRate gpu_rates[] = {
	{"v100", 10.0, 30.0, 0.0},
	{"a100", 40.0, 120.0, 120.0},
	{"h100", 100.0, 350.0, 350.0},
};

const char *const precisions[] = {"fp32", "fp16", "bf16"};

std::vector<CatalogueEntry> make_entries()
{
	std::vector<CatalogueEntry> v = {
	// name, kind, description, params, fwd FLOPs, batch, seq, precision,
	// hidden, tables, tp, pp
	{"vgg11", Kind::Cnn, "VGG-11, ImageNet 224x224", 132863336, 2 * 7.61e9, 64, 0, "fp32", 0, 0, 0, 0, {}},
	{"vgg16", Kind::Cnn, "VGG-16, ImageNet 224x224", 138357544, 2 * 15.47e9, 64, 0, "fp32", 0, 0, 0, 0, {}},
	{"vgg19", Kind::Cnn, "VGG-19, ImageNet 224x224", 143667240, 2 * 19.63e9, 64, 0, "fp32", 0, 0, 0, 0, {}},
	{"resnet50", Kind::Cnn, "ResNet-50, ImageNet 224x224", 25557032, 2 * 4.09e9, 64, 0, "fp32", 0, 0, 0, 0, {}},
	{"wideresnet101-2", Kind::Cnn, "Wide ResNet-101-2, ImageNet 224x224", 126886696, 2 * 22.75e9, 32, 0, "fp32", 0, 0, 0, 0, {}},
	{"bert-base", Kind::Transformer, "BERT-base (uncased)", 110e6, 0, 32, 128, "fp32", 0, 0, 0, 0, {}},
	{"bert-large", Kind::Transformer, "BERT-large (uncased)", 340e6, 0, 32, 128, "fp32", 0, 0, 0, 0, {}},
	{"roberta-base", Kind::Transformer, "RoBERTa-base", 125e6, 0, 16, 512, "fp32", 0, 0, 0, 0, {}},
	{"xlm", Kind::Transformer, "XLM-RoBERTa base", 270e6, 0, 16, 512, "fp32", 0, 0, 0, 0, {}},
	{"camembert", Kind::Transformer, "CamemBERT-base", 110e6, 0, 16, 512, "fp32", 0, 0, 0, 0, {}},
	{"gpt1", Kind::Transformer, "GPT-1 (openai-gpt)", 117e6, 0, 16, 512, "fp32", 0, 0, 0, 0, {}},
	{"gpt2", Kind::Transformer, "GPT-2 small", 124e6, 0, 8, 1024, "fp32", 0, 0, 0, 0, {}},
	{"gpt2-xl", Kind::Transformer, "GPT-2 XL", 1.56e9, 0, 4, 1024, "bf16", 0, 0, 0, 0, {}},
	{"gpt3-xl", Kind::Transformer, "GPT-3 XL (GPT-3 paper, 1.3B)", 1.3e9, 0, 4, 2048, "bf16", 0, 0, 0, 0, {}},
	{"dlrm", Kind::Dlrm, "DLRM, MLPerf Criteo 1TB config", 2368897, 2 * 2.37e6 + 2 * 27 * 27 * 128, 2048, 0, "fp32", 128, 26, 0, 0, {}},
	{"llama-7b", Kind::Llm, "LLaMA-2 7B", 6.74e9, 0, 16, 4096, "bf16", 4096, 0, 2, 1, {}},
	{"llama-70b", Kind::Llm, "LLaMA-2 70B", 68.98e9, 0, 32, 4096, "bf16", 8192, 0, 8, 2, {}},
	{"gpt3-175b", Kind::Llm, "GPT-3 175B", 175e9, 0, 32, 2048, "bf16", 12288, 0, 8, 2, {}},
	// MoE: params = all; batch = sequences per tensor-parallel group;
	// tp default 2 (so 8 expert-parallel ranks span two 8-GPU nodes).
	{"mixtral-8x7b", Kind::Moe, "Mixtral 8x7B, 8 experts, top-2", 46702792704.0, 0, 4, 4096, "bf16", 4096, 0, 2, 0, {}},
	};
	return v;
}

const MoeShape &moe_shape(const CatalogueEntry &e)
{
	static const MoeShape mixtral = {32, 8, 2, 45097156608.0, 12879925248.0, 8};
	if (e.name == "mixtral-8x7b")
		return mixtral;
	fail(ORRERY_EINTERNAL, "catalogue: no expert layout for '" + e.name + "'");
}

// Accepted parameters by kind, alphabetical (also the canonical order).
std::vector<std::string> accepted(Kind k)
{
	switch (k) {
	case Kind::Cnn:
	case Kind::Dlrm:
		return {"batch", "gpu", "overlap", "precision"};
	case Kind::Transformer:
		return {"batch", "gpu", "overlap", "precision", "seq"};
	case Kind::Llm:
		return {"batch", "dp", "gpu", "overlap", "pp", "precision",
			"seq", "tp"};
	case Kind::Moe:
		return {"batch", "ep", "gpu", "overlap", "precision", "seq", "tp"};
	}
	return {};
}

const char *kind_text(Kind k)
{
	switch (k) {
	case Kind::Cnn: return "CNN, data-parallel ring all-reduce";
	case Kind::Transformer: return "transformer, data-parallel ring all-reduce";
	case Kind::Llm: return "LLM, pipeline sends + data-parallel all-reduce (tensor parallel inside a node)";
	case Kind::Dlrm: return "recommender, embedding all-to-all + MLP all-reduce";
	case Kind::Moe: return "mixture-of-experts, expert-parallel all-to-all + data-parallel all-reduce (tensor parallel inside a node)";
	}
	return "";
}

std::string join(const std::vector<std::string> &v)
{
	std::string s;
	for (const std::string &x : v)
		s += (s.empty() ? "" : ", ") + x;
	return s;
}

std::string params_text(double p)
{
	char buf[32];
	if (p >= 1e9)
		snprintf(buf, sizeof(buf), "%.2f B", p / 1e9);
	else
		snprintf(buf, sizeof(buf), "%.1f M", p / 1e6);
	return buf;
}

std::vector<CatalogueEntry> &entries()
{
	// Built once, read-only afterwards (C++11 guarantees thread-safe
	// initialisation of function-local statics).
	static std::vector<CatalogueEntry> v = [] {
		std::vector<CatalogueEntry> e = make_entries();
		for (CatalogueEntry &c : e)
			c.summary = c.name + ": " + c.desc + ", " +
				    params_text(c.params) + " params; " +
				    kind_text(c.kind) + "; params: " +
				    join(accepted(c.kind));
		return e;
	}();
	return v;
}

// Levenshtein distance of a and b, or limit + 1 as soon as it must exceed
// limit: the length difference bounds it from below, and so does the
// smallest entry of a row.  Only distances up to limit are ever shown, and
// the full table per catalogue entry was most of the time spent on a
// mistyped model name (profile_spec and state_file fuzzers).
size_t edit_distance(const std::string &a, const std::string &b, size_t limit)
{
	size_t diff = a.size() > b.size() ? a.size() - b.size() : b.size() - a.size();
	if (diff > limit)
		return limit + 1;
	std::vector<size_t> row(b.size() + 1);
	for (size_t j = 0; j <= b.size(); j++)
		row[j] = j;
	for (size_t i = 1; i <= a.size(); i++) {
		size_t diag = row[0];
		row[0] = i;
		size_t low = row[0];
		for (size_t j = 1; j <= b.size(); j++) {
			size_t up = row[j];
			size_t v = diag + (a[i - 1] != b[j - 1]);
			if (row[j] + 1 < v)
				v = row[j] + 1;
			if (row[j - 1] + 1 < v)
				v = row[j - 1] + 1;
			row[j] = v;
			diag = up;
			if (v < low)
				low = v;
		}
		if (low > limit)
			return limit + 1;
	}
	return std::min(row[b.size()], limit + 1);
}

const CatalogueEntry &find_entry(const std::string &raw)
{
	std::string name;
	for (char c : raw)
		name += (char)tolower((unsigned char)c);
	for (const CatalogueEntry &e : entries())
		if (e.name == name)
			return e;
	// Suggest the closest name when it is plausibly a typo: at most a
	// third of the name's letters wrong (and at most 3).
	size_t limit = std::min<size_t>(3, std::max<size_t>(1, name.size() / 3));
	const CatalogueEntry *best = nullptr;
	size_t best_d = limit + 1;
	if (name.size() <= 64)
		for (const CatalogueEntry &e : entries()) {
			size_t d = edit_distance(name, e.name, limit);
			if (d < best_d) {
				best_d = d;
				best = &e;
			}
		}
	std::string shown = raw.size() > 64 ? raw.substr(0, 64) + "..." : raw;
	if (best && best_d <= limit)
		fail(ORRERY_EINVAL, "unknown model '" + shown +
			"' (did you mean '" + best->name + "'?)");
	fail(ORRERY_EINVAL, "unknown model '" + shown +
		"' (see orrery-profile(7) for the catalogue)");
}

// ------------------------------------------------------------ values

uint64_t parse_uint(const std::string &key, const std::string &v,
		    uint64_t lo, uint64_t hi)
{
	std::string range = "(" + std::to_string(lo) + ".." +
			    std::to_string(hi) + ")";
	uint64_t x = 0;
	bool big = false;
	if (v.empty() || v.size() > 64)
		big = !v.empty();
	for (char c : v) {
		if (!isdigit((unsigned char)c))
			fail(ORRERY_EINVAL, key + "=" + v.substr(0, 64) +
				" is not a whole number " + range);
		if (x > hi)
			big = true;
		else
			x = x * 10 + (uint64_t)(c - '0');
	}
	if (big || x < lo || x > hi)
		fail(ORRERY_ERANGE, key + "=" + v.substr(0, 64) +
			" out of range " + range);
	return x;
}

std::string pick(const std::string &key, const std::string &v,
		 const std::vector<std::string> &choices)
{
	std::string low;
	for (char c : v)
		low += (char)tolower((unsigned char)c);
	for (const std::string &c : choices)
		if (c == low)
			return c;
	fail(ORRERY_EINVAL, key + " '" + v.substr(0, 64) +
		"' not accepted (accepted: " + join(choices) + ")");
}

// overlap: 0 .. 0.9 with at most three decimals, kept as thousandths so
// that "0.30" and ".3"-free "0.3" compare equal.
unsigned parse_overlap(const std::string &v)
{
	const char *range = " out of range (0..0.9)";
	size_t i = 0;
	unsigned ip = 0, frac = 0, nfrac = 0;
	bool digits = false;
	for (; i < v.size() && isdigit((unsigned char)v[i]); i++) {
		digits = true;
		if (ip > 1000)
			fail(ORRERY_ERANGE, "overlap=" + v.substr(0, 64) + range);
		ip = ip * 10 + (unsigned)(v[i] - '0');
	}
	if (i < v.size() && v[i] == '.') {
		for (i++; i < v.size() && isdigit((unsigned char)v[i]); i++) {
			if (++nfrac > 3) {
				if (v[i] != '0')
					fail(ORRERY_EINVAL, "overlap=" + v.substr(0, 64) +
						" has more than 3 decimals");
				continue;
			}
			frac = frac * 10 + (unsigned)(v[i] - '0');
		}
		if (nfrac == 0)
			digits = false;
	}
	if (!digits || i != v.size())
		fail(ORRERY_EINVAL, "overlap=" + v.substr(0, 64) +
			" is not a number (0..0.9, fraction of communication "
			"hidden behind compute)");
	for (unsigned k = std::min(nfrac, 3u); k < 3; k++)
		frac *= 10;
	unsigned permille = ip * 1000 + frac;
	if (ip > 0 || permille > 900)
		fail(ORRERY_ERANGE, "overlap=" + v.substr(0, 64) + range);
	return permille;
}

std::string overlap_text(unsigned permille)
{
	if (permille == 0)
		return "0";
	std::string d = std::to_string(1000 + permille).substr(1);
	while (d.back() == '0')
		d.pop_back();
	return "0." + d;
}

struct Params {
	unsigned batch = 0, seq = 0, tp = 0, pp = 0, dp = 0;  // dp 0 = auto
	unsigned ep = 0;                                      // Moe
	unsigned overlap = 0;                                 // thousandths
	std::string precision, gpu;
};

// Every accepted parameter, defaults filled in, values canonical.
std::map<std::string, std::string>
normalise_params(const CatalogueEntry &e,
		 const std::map<std::string, std::string> &in, Params *out)
{
	std::vector<std::string> acc = accepted(e.kind);
	for (const auto &kv : in) {
		std::string key;
		for (char c : kv.first)
			key += (char)tolower((unsigned char)c);
		if (std::find(acc.begin(), acc.end(), key) == acc.end())
			fail(ORRERY_EINVAL, "unknown parameter '" +
				kv.first.substr(0, 64) + "' for model '" +
				e.name + "' (accepted: " + join(acc) + ")");
	}
	auto get = [&](const std::string &key, const std::string &def) {
		for (const auto &kv : in) {
			std::string k;
			for (char c : kv.first)
				k += (char)tolower((unsigned char)c);
			if (k == key)
				return kv.second;
		}
		return def;
	};
	Params p;
	std::map<std::string, std::string> out_map;
	p.batch = (unsigned)parse_uint("batch", get("batch", std::to_string(e.batch)), 1, 65536);
	out_map["batch"] = std::to_string(p.batch);
	p.precision = pick("precision", get("precision", e.precision),
			   {"fp32", "fp16", "bf16"});
	out_map["precision"] = p.precision;
	p.gpu = pick("gpu", get("gpu", "a100"), {"v100", "a100", "h100"});
	out_map["gpu"] = p.gpu;
	if (p.gpu == "v100" && p.precision == "bf16")
		fail(ORRERY_EINVAL, "precision 'bf16' not accepted with gpu=v100 "
			"(V100 has no bf16; accepted: fp32, fp16)");
	p.overlap = parse_overlap(get("overlap", "0"));
	out_map["overlap"] = overlap_text(p.overlap);
	if (e.kind == Kind::Transformer || e.kind == Kind::Llm ||
	    e.kind == Kind::Moe) {
		p.seq = (unsigned)parse_uint("seq", get("seq", std::to_string(e.seq)), 1, 131072);
		out_map["seq"] = std::to_string(p.seq);
	}
	if (e.kind == Kind::Llm) {
		p.tp = (unsigned)parse_uint("tp", get("tp", std::to_string(e.tp)), 1, 64);
		p.pp = (unsigned)parse_uint("pp", get("pp", std::to_string(e.pp)), 1, 1024);
		std::string dp = get("dp", "auto");
		std::string dpl;
		for (char c : dp)
			dpl += (char)tolower((unsigned char)c);
		if (dpl == "auto") {
			p.dp = 0;
			out_map["dp"] = "auto";
		} else {
			p.dp = (unsigned)parse_uint("dp", dp, 1, 65536);
			out_map["dp"] = std::to_string(p.dp);
		}
		out_map["tp"] = std::to_string(p.tp);
		out_map["pp"] = std::to_string(p.pp);
	}
	if (e.kind == Kind::Moe) {
		const MoeShape &ms = moe_shape(e);
		p.tp = (unsigned)parse_uint("tp", get("tp", std::to_string(e.tp)), 1, 64);
		p.ep = (unsigned)parse_uint("ep", get("ep", std::to_string(ms.ep)),
					    1, ms.experts);
		if (ms.experts % p.ep)
			fail(ORRERY_EINVAL, "ep=" + std::to_string(p.ep) +
				" must divide the " + std::to_string(ms.experts) +
				" experts of " + e.name + " (each rank holds whole experts)");
		out_map["tp"] = std::to_string(p.tp);
		out_map["ep"] = std::to_string(p.ep);
	}
	if (out)
		*out = p;
	return out_map;
}

double effective_flops(const Params &p)
{
	for (const GpuRate &g : gpu_rates)
		if (p.gpu == g.name) {
			double t = p.precision == "fp32" ? g.fp32
				 : p.precision == "fp16" ? g.fp16 : g.bf16;
			return t * 1e12;
		}
	fail(ORRERY_EINTERNAL, "catalogue: no GPU rate for '" + p.gpu + "'");
}

// ------------------------------------------------------------ resolution

// A phase in floating-point microseconds before rounding.
struct RawPhase {
	double offset, duration, demand;
	Collective coll;
	uint32_t groups = 0;  // pipeline stages (Collective::Pipeline)
};

// Round to whole µs and Mbit/s, clamp to the hard limits, validate.
// Periods beyond ORRERY_MAX_PERIOD_US are compressed proportionally;
// periods below ORRERY_MIN_PERIOD_US get idle time appended.
Pattern finish(double period, std::vector<RawPhase> raw, uint64_t link)
{
	double scale = 1.0;
	if (period > (double)ORRERY_MAX_PERIOD_US)
		scale = (double)ORRERY_MAX_PERIOD_US / period;
	Pattern p;
	p.period_us = std::llround(period * scale);
	uint64_t cap = std::min<uint64_t>(link, ORRERY_MAX_DEMAND_MBPS);
	for (const RawPhase &r : raw) {
		Phase ph;
		ph.offset_us = std::llround(r.offset * scale);
		ph.duration_us = std::max<int64_t>(1, std::llround(r.duration * scale));
		double d = std::ceil(r.demand - 1e-9);
		ph.demand_mbps = (uint64_t)std::clamp<double>(
			d, (double)ORRERY_MIN_DEMAND_MBPS, (double)cap);
		ph.coll = r.coll;
		ph.groups = r.groups;
		p.period_us = std::max(p.period_us, ph.offset_us + ph.duration_us);
		p.phases.push_back(ph);
	}
	if (p.period_us > ORRERY_MAX_PERIOD_US) {  // rounding at the cap
		for (Phase &ph : p.phases) {
			ph.offset_us = std::min<int64_t>(ph.offset_us, ORRERY_MAX_PERIOD_US - 1);
			ph.duration_us = std::min<int64_t>(ph.duration_us,
						  ORRERY_MAX_PERIOD_US - ph.offset_us);
		}
		p.period_us = ORRERY_MAX_PERIOD_US;
	}
	p.period_us = std::max<int64_t>(p.period_us, ORRERY_MIN_PERIOD_US);
	return normalise_pattern(std::move(p));
}

// Ring all-reduce of `bytes` per node, hierarchical: the GPUs of a node
// reduce over NVLink first, so only 2(N-1)/N of the node's gradient bytes
// cross its NIC.
double ring_bytes(double grad_bytes, double nodes)
{
	return 2.0 * (nodes - 1.0) / nodes * grad_bytes;
}

// Tensor parallelism stays inside a node (LLM and MoE layouts).
void check_tp(const std::string &who, uint64_t tp, uint64_t gpn)
{
	if (tp > gpn || gpn % tp)
		fail(ORRERY_EINVAL, who + "tp=" + std::to_string(tp) +
			" must divide the GPUs per node (" +
			std::to_string(gpn) +
			"): tensor parallelism stays inside a node");
}

// µs to move `bytes` at `link` Mbit/s (1 Mbit/s = 1 bit/µs).
double wire_us(double bytes, uint64_t link)
{
	return bytes * 8.0 / (double)link;
}

}  // namespace

size_t catalogue_size() { return entries().size(); }

const std::string &catalogue_name(size_t i)
{
	if (i >= entries().size())
		fail(ORRERY_ERANGE, "catalogue index " + std::to_string(i) +
			" out of range");
	return entries()[i].name;
}

const std::string &catalogue_summary(size_t i)
{
	if (i >= entries().size())
		fail(ORRERY_ERANGE, "catalogue index " + std::to_string(i) +
			" out of range");
	return entries()[i].summary;
}

ModelRef normalise_model(const std::string &name,
			 const std::map<std::string, std::string> &params)
{
	const CatalogueEntry &e = find_entry(name);
	ModelRef m;
	m.name = e.name;
	m.params = normalise_params(e, params, nullptr);
	return m;
}

Pattern resolve_model(const ModelRef &model, const Shape &shape_in)
{
	const CatalogueEntry &e = find_entry(model.name);
	Params p;
	normalise_params(e, model.params, &p);

	// Zero fields take the documented defaults.
	uint64_t nodes = shape_in.nodes ? shape_in.nodes : 2;
	uint64_t gpn = shape_in.gpus_per_node ? shape_in.gpus_per_node : 8;
	uint64_t link = shape_in.link_mbps ? shape_in.link_mbps : 100000;
	if (gpn > 1024)
		fail(ORRERY_ERANGE, "gpus_per_node=" + std::to_string(gpn) +
			" out of range (1..1024)");

	const double flops = effective_flops(p);
	const double grad_bytes = p.precision == "fp32" ? 4.0 : 2.0;
	const double overlap = p.overlap / 1000.0;
	const double N = (double)nodes;
	std::vector<RawPhase> ph;

	if (e.kind == Kind::Cnn || e.kind == Kind::Transformer ||
	    e.kind == Kind::Dlrm) {
		double per_sample = e.kind == Kind::Transformer
			? 6.0 * e.params * p.seq
			: 3.0 * e.fwd_flops;
		double compute = p.batch * per_sample / flops * 1e6;
		if (nodes <= 1)
			return finish(compute, {}, link);
		double a2a = 0.0;
		if (e.kind == Kind::Dlrm) {
			// Each GPU's looked-up embeddings go to the GPUs that
			// own the samples (forward) and their gradients come
			// back (backward): per node, every GPU's batch x tables
			// x dim values, of which (N-1)/N leave the node.
			double bytes = 2.0 * (double)gpn * p.batch * e.tables *
				       e.hidden * grad_bytes * (N - 1.0) / N;
			a2a = wire_us(bytes, link);
			ph.push_back({0.0, a2a, (double)link,
				      Collective::AllToAll});
		}
		double comm = wire_us(ring_bytes(e.params * grad_bytes, N), link);
		double hidden = std::min(overlap * comm, compute);
		double start = a2a + compute - hidden;
		ph.push_back({start, comm, (double)link, Collective::Ring});
		return finish(start + comm, ph, link);
	}

	if (e.kind == Kind::Moe) {
		// GPUs numbered tensor-parallel rank fastest, then expert-
		// parallel rank, then data-parallel replica (Megatron-LM's MoE
		// order).  An expert-parallel group holds each expert once.
		const MoeShape &ms = moe_shape(e);
		uint64_t total = nodes * gpn, tp = p.tp, group = p.tp * p.ep;
		std::string who = e.name + ": ";
		check_tp(who, tp, gpn);
		if (group > total || total % group)
			fail(ORRERY_EINVAL, who + "tp=" + std::to_string(tp) +
				" x ep=" + std::to_string(p.ep) +
				" does not divide the job's " + std::to_string(total) +
				" GPUs (" + std::to_string(nodes) + " nodes x " +
				std::to_string(gpn) + ")");
		if (group % gpn && gpn % group)
			fail(ORRERY_EINVAL, who + "tp x ep = " + std::to_string(group) +
				" GPUs per expert-parallel group must be a multiple "
				"or a divisor of the GPUs per node (" +
				std::to_string(gpn) + ")");
		// Each token costs 6 x its active parameters (top-k experts),
		// split over the tensor-parallel ranks.
		double compute = 6.0 * ms.active_params * p.seq * p.batch /
				 (double)tp / flops * 1e6;
		if (nodes <= 1)
			return finish(compute, {}, link);
		// All-to-all: per MoE layer each token's hidden vector goes
		// to its top-k experts and comes back (dispatch, combine),
		// forward and backward: 4 x k x hidden x bytes per token per
		// layer, of which the experts on the group's other nodes
		// take (G-1)/G, G = nodes per group (routing uniform).
		double ep_nodes = group >= gpn ? (double)(group / gpn) : 1.0;
		double tokens = (double)(gpn / tp) * p.batch * p.seq;
		double a2a_bytes = 4.0 * ms.topk * ms.layers * e.hidden *
				   grad_bytes * tokens * (ep_nodes - 1.0) / ep_nodes;
		double a2a = 0.0;
		if (a2a_bytes > 0) {
			a2a = wire_us(a2a_bytes, link);
			ph.push_back({0.0, a2a, (double)link, Collective::AllToAll});
		}
		// Data-parallel all-reduce: the non-expert gradients over all
		// nodes, each expert's over its replicas (one per group, the
		// node holding 1/G of the experts); one ring phase.
		double dense = (e.params - ms.expert_params) * grad_bytes;
		double expert = ms.expert_params * grad_bytes / ep_nodes;
		double comm = wire_us(ring_bytes(dense, N) +
				      ring_bytes(expert, N / ep_nodes), link);
		double hidden = std::min(overlap * comm, compute);
		double start = a2a + compute - hidden;
		ph.push_back({start, comm, (double)link, Collective::Ring});
		return finish(start + comm, ph, link);
	}

	// LLM: GPUs numbered tensor-parallel rank fastest, then data-
	// parallel rank, then pipeline stage (Megatron-LM's default order).
	uint64_t total = nodes * gpn;
	uint64_t tp = p.tp, pp = p.pp;
	std::string who = e.name + ": ";
	check_tp(who, tp, gpn);
	if (tp * pp > total || total % (tp * pp))
		fail(ORRERY_EINVAL, who + "tp=" + std::to_string(tp) + " x pp=" +
			std::to_string(pp) + " does not divide the job's " +
			std::to_string(total) + " GPUs (" + std::to_string(nodes) +
			" nodes x " + std::to_string(gpn) + ")");
	uint64_t dp = p.dp ? p.dp : total / (tp * pp);
	if (dp * tp * pp != total)
		fail(ORRERY_EINVAL, who + "dp=" + std::to_string(dp) + " x tp=" +
			std::to_string(tp) + " x pp=" + std::to_string(pp) +
			" is " + std::to_string(dp * tp * pp) +
			" GPUs but the job has " + std::to_string(total) + " (" +
			std::to_string(nodes) + " nodes x " +
			std::to_string(gpn) + "); use dp=auto");
	uint64_t stage = dp * tp;  // GPUs per pipeline stage
	if (stage % gpn && gpn % stage)
		fail(ORRERY_EINVAL, who + "dp x tp = " + std::to_string(stage) +
			" GPUs per pipeline stage must be a multiple or a "
			"divisor of the GPUs per node (" + std::to_string(gpn) + ")");

	// One sequence per micro-batch, `batch` micro-batches per replica;
	// 1F1B schedule bubble (pp-1)/m.
	double m = p.batch;
	double compute = 6.0 * e.params * p.seq * m / (double)(tp * pp) /
			 flops * 1e6 * (1.0 + (double)(pp - 1) / m);
	if (nodes <= 1)
		return finish(compute, {}, link);

	double window = compute;
	if (pp > 1) {
		// Activations forward and their gradients backward, one
		// seq x hidden tensor per micro-batch per tensor-parallel
		// group at a stage boundary (split across its tp ranks).
		// Interior stages send both ways; with pp=2 each side sends
		// one way only.
		double groups = (double)std::min(gpn, stage) / (double)tp;
		double sends = pp > 2 ? 2.0 : 1.0;
		double bits = 8.0 * groups * sends * m * p.seq * e.hidden *
			      grad_bytes;
		window = std::max(compute, bits / (double)link);
		// Point-to-point between the pp stages (consecutive blocks of
		// nodes in rank order): the pipeline crossing rule.
		ph.push_back({0.0, window, bits / window, Collective::Pipeline,
			      (uint32_t)pp});
	}
	double stage_nodes = stage >= gpn ? (double)(stage / gpn) : 1.0;
	if (stage_nodes <= 1.0)  // data-parallel groups inside one node
		return finish(window, ph, link);
	double comm = wire_us(ring_bytes(e.params / (double)pp * grad_bytes,
					 stage_nodes), link);
	double hidden = std::min(overlap * comm, window);
	double start = window - hidden;
	ph.push_back({start, comm, (double)link, Collective::Ring});
	return finish(start + comm, ph, link);
}

}  // namespace orrery
