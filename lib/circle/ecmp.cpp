// The expected-excess collision model of lib/circle/ecmp.hpp.
#include "circle/ecmp.hpp"

#include <algorithm>
#include <cmath>

namespace orrery {

const std::vector<EcmpExcess::Term> &EcmpExcess::terms(uint32_t flows) const
{
	auto it = tab_.find(flows);
	if (it != tab_.end())
		return it->second;
	std::vector<Term> &t = tab_[flows];
	const double k = (double)cap_.links, p = 1.0 / k, F = (double)flows;
	// log P[Bin(F,p) = n], largest n first: the terms that matter at a
	// given D are those with n D / F > c, the top of the distribution.
	for (uint32_t n = flows; n >= 1; n--) {
		double lp = std::lgamma(F + 1) - std::lgamma((double)n + 1) -
			    std::lgamma(F - n + 1) + n * std::log(p) +
			    (F - n) * std::log1p(-p);
		double kp = k * std::exp(lp);
		if (kp > 1e-15)
			t.push_back(Term{(double)n, kp});
	}
	return t;
}

double EcmpExcess::operator()(double total, uint32_t flows) const
{
	if (cap_.mbps == 0 || total <= 0)
		return 0.0;
	if (cap_.links <= 1 || flows <= 1) {
		// One pipe, or one flow: it sits on one link of c (the NIC
		// rate keeps a single flow below that on real fabrics).
		double C = cap_.links <= 1 ? (double)cap_.mbps : cap_.per_link();
		return std::max(0.0, total - C);
	}
	const uint32_t f = std::min(flows, kMaxFlows);
	const double c = cap_.per_link(), per_flow = total / (double)f;
	double e = 0.0;
	for (const Term &t : terms(f)) {
		double over = t.n * per_flow - c;
		if (over <= 0)
			break;  // smaller n from here on
		e += t.kp * over;
	}
	return e;
}

}  // namespace orrery
