// SVG drawing of one link's unified circle.
//
// Numbers are formatted with std::to_chars, not printf, so the output
// does not depend on the process locale (a decimal comma would break
// the SVG) and is byte-for-byte reproducible.
#include "writers/svg.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <string>

#include "core/error.hpp"

namespace orrery {

namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kCx = 320.0, kCy = 320.0;
constexpr double kJobInner = 60.0, kJobOuter = 240.0;
constexpr double kLoadInner = 252.0, kLoadCapacity = 276.0, kLoadMax = 300.0;
constexpr size_t kLabelMax = 80;

// Tableau 10: distinct hues; the faded ("before") tints are the same
// hues mixed 65% with white, written out rather than left to
// fill-opacity, which some renderers ignore.
const char *const kColours[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd",
				"#8c564b", "#e377c2", "#7f7f7f", "#bcbd22",
				"#17becf", "#393b79"};
constexpr size_t kNColours = sizeof(kColours) / sizeof(*kColours);

std::string faded(const char *hex)
{
	static const char digits[] = "0123456789abcdef";
	std::string o = "#";
	for (int i = 0; i < 3; i++) {
		int v = std::stoi(std::string(hex + 1 + 2 * i, 2), nullptr, 16);
		v = (int)std::lround(v * 0.35 + 255 * 0.65);
		o += digits[v >> 4];
		o += digits[v & 15];
	}
	return o;
}

std::string num(double v, int decimals = 2)
{
	if (!std::isfinite(v))
		v = 0.0;
	if (std::fabs(v) < 0.5 * std::pow(10.0, -decimals))
		v = 0.0;  // never "-0.00"
	char buf[64];
	auto res = std::to_chars(buf, buf + sizeof(buf), v,
				 std::chars_format::fixed, decimals);
	return std::string(buf, res.ptr);
}

std::string point(double r, double theta)
{
	return num(kCx + r * std::sin(theta)) + "," +
	       num(kCy - r * std::cos(theta));
}

// Annular sector between radii ri < ro, angles t0 < t1 (clockwise from
// the top).  A full ring is drawn as two halves (an SVG arc cannot
// start and end at the same point).
std::string sector(double ri, double ro, double t0, double t1)
{
	if (t1 - t0 >= 2.0 * kPi - 1e-9)
		return sector(ri, ro, t0, t0 + kPi) + " " +
		       sector(ri, ro, t0 + kPi, t0 + 2.0 * kPi);
	const char *large = (t1 - t0) > kPi ? "1" : "0";
	std::string sro = num(ro), sri = num(ri);
	return "M" + point(ro, t0) + " A" + sro + "," + sro + " 0 " + large +
	       " 1 " + point(ro, t1) + " L" + point(ri, t1) + " A" + sri +
	       "," + sri + " 0 " + large + " 0 " + point(ri, t0) + " Z";
}

// Up arcs of one demand vector: runs of bins with demand.
std::string up_arcs(const std::vector<double> &d, double ri, double ro)
{
	const size_t A = d.size();
	double peak = 0.0;
	for (double v : d)
		peak = std::max(peak, v);
	std::string path;
	if (peak <= 0.0)
		return path;
	auto up = [&](size_t b) { return d[b % A] > peak * 1e-9; };
	if (std::all_of(d.begin(), d.end(), [&](double v) { return v > peak * 1e-9; }))
		return sector(ri, ro, 0.0, 2.0 * kPi);
	// Start at a Down bin so a run crossing angle 0 stays whole.
	size_t start = 0;
	while (up(start))
		start++;
	for (size_t i = 0; i < A;) {
		size_t b = start + i;
		if (!up(b)) {
			i++;
			continue;
		}
		size_t e = i;
		while (e < A && up(start + e))
			e++;
		double t0 = 2.0 * kPi * (double)(start + i) / (double)A;
		double t1 = 2.0 * kPi * (double)(start + e) / (double)A;
		if (!path.empty())
			path += " ";
		path += sector(ri, ro, t0, t1);
		i = e;
	}
	return path;
}

std::string ms(int64_t us)
{
	return num((double)us / 1000.0, 3);
}

}  // namespace

std::string xml_escape(std::string_view s, size_t max_bytes)
{
	std::string o;
	size_t i = 0, n = std::min(s.size(), max_bytes);
	while (i < n) {
		unsigned char c = (unsigned char)s[i];
		if (c < 0x80) {
			switch (c) {
			case '&': o += "&amp;"; break;
			case '<': o += "&lt;"; break;
			case '>': o += "&gt;"; break;
			case '"': o += "&quot;"; break;
			case '\'': o += "&#39;"; break;
			default:
				// XML 1.0 forbids most control characters.
				o += (c < 0x20 || c == 0x7f) ? '?' : (char)c;
			}
			i++;
			continue;
		}
		// Multi-byte UTF-8: copy a well-formed sequence whole.
		size_t len = c >= 0xf0 && c <= 0xf4 ? 4
			   : c >= 0xe0 ? 3
			   : c >= 0xc2 && c <= 0xdf ? 2 : 0;
		bool ok = len && i + len <= n;
		for (size_t k = 1; ok && k < len; k++)
			ok = ((unsigned char)s[i + k] & 0xc0) == 0x80;
		if (ok && len == 3) {
			unsigned char c1 = (unsigned char)s[i + 1];
			ok = !(c == 0xe0 && c1 < 0xa0) && !(c == 0xed && c1 >= 0xa0);
		}
		if (ok && len == 4) {
			unsigned char c1 = (unsigned char)s[i + 1];
			ok = !(c == 0xf0 && c1 < 0x90) && !(c == 0xf4 && c1 >= 0x90);
		}
		if (ok) {
			o.append(s.data() + i, len);
			i += len;
		} else {
			o += '?';
			i++;
		}
	}
	if (s.size() > max_bytes)
		o += "...";
	return o;
}

void write_link_svg(const LinkScore &s, const std::vector<LinkJob> &jobs,
		    uint64_t capacity_mbps, const char *const *labels,
		    const char *title, FILE *out)
{
	const Circle &c = s.circle;
	const size_t n = jobs.size();
	const uint32_t A = c.bins;
	const double legend_line = 18.0;
	const double height = 2.0 * kCy + 88.0 + legend_line * (double)n;

	std::string t;
	t += "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
	t += "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" "
	     "width=\"640\" height=\"" + num(height, 0) +
	     "\" viewBox=\"0 0 640 " + num(height, 0) + "\" "
	     "font-family=\"sans-serif\" font-size=\"12\">\n";
	std::string ttl = title ? xml_escape(title, 200) : "orrery: one link's unified circle";
	t += "<title>" + ttl + "</title>\n";
	t += "<rect width=\"640\" height=\"" + num(height, 0) +
	     "\" fill=\"#ffffff\"/>\n";

	// Job rings: inner half before rotation (faded), outer half after.
	std::vector<double> total(A, 0.0);
	const double ring = (kJobOuter - kJobInner) / (double)std::max<size_t>(n, 1);
	for (size_t j = 0; j < n; j++) {
		const char *colour = kColours[j % kNColours];
		int64_t before = jobs[j].fixed_shift_us ? s.shift_us[j] : 0;
		std::vector<double> d0 = discretise(jobs[j].pattern, 1.0, c, j, before);
		std::vector<double> d1 = discretise(jobs[j].pattern, 1.0, c, j, s.shift_us[j]);
		for (uint32_t b = 0; b < A; b++)
			total[b] += d1[b];
		double ri = kJobInner + ring * (double)j;
		double mid = ri + ring * 0.5, ro = ri + ring * 0.92;
		t += "<circle cx=\"320\" cy=\"320\" r=\"" + num(ro) +
		     "\" fill=\"none\" stroke=\"#e0e0e0\" stroke-width=\"0.5\"/>\n";
		std::string p0 = up_arcs(d0, ri, mid), p1 = up_arcs(d1, mid, ro);
		if (!p0.empty())
			t += "<path d=\"" + p0 + "\" fill=\"" + faded(colour) +
			     "\" stroke=\"none\"/>\n";
		if (!p1.empty())
			t += "<path d=\"" + p1 + "\" fill=\"" + colour +
			     "\" stroke=\"none\"/>\n";
	}

	// Outer ring: total demand after rotation, capacity at the dashed
	// circle, bins over capacity in red.
	double peak = 0.0;
	for (double v : total)
		peak = std::max(peak, v);
	double C = (double)capacity_mbps;
	double unit = C > 0 ? C : (peak > 0 ? peak : 1.0);
	std::string ok_path, over_path;
	for (uint32_t b = 0; b < A; b++) {
		if (total[b] <= 0.0)
			continue;
		double h = std::min(total[b] / unit, 2.0) *
			   (kLoadCapacity - kLoadInner);
		double t0 = 2.0 * kPi * b / A, t1 = 2.0 * kPi * (b + 1) / A;
		bool over = C > 0 && total[b] > C * (1.0 + kOverEpsilon);
		std::string &p = over ? over_path : ok_path;
		if (!p.empty())
			p += " ";
		p += sector(kLoadInner, kLoadInner + std::min(h, kLoadMax - kLoadInner), t0, t1);
	}
	if (!ok_path.empty())
		t += "<path d=\"" + ok_path + "\" fill=\"#9e9e9e\" stroke=\"none\"/>\n";
	if (!over_path.empty())
		t += "<path d=\"" + over_path + "\" fill=\"#d62728\" stroke=\"none\"/>\n";
	t += "<circle cx=\"320\" cy=\"320\" r=\"" + num(kLoadCapacity) +
	     "\" fill=\"none\" stroke=\"#000000\" stroke-width=\"0.8\" "
	     "stroke-dasharray=\"4,3\"/>\n";
	// Angle 0 (time 0 of the circle) and the direction of time.
	t += "<line x1=\"320\" y1=\"" + num(kCy - kJobInner + 4) + "\" x2=\"320\" y2=\"" +
	     num(kCy - kLoadMax - 4) + "\" stroke=\"#000000\" stroke-width=\"0.8\"/>\n";
	t += "<text x=\"324\" y=\"" + num(kCy - kLoadMax - 2) + "\">0 \xe2\x86\x92</text>\n";

	// Legend.
	double y = 2.0 * kCy + 4.0;
	t += "<text x=\"10\" y=\"" + num(y) + "\" font-weight=\"bold\">" + ttl + "</text>\n";
	y += legend_line;
	std::string info = "perimeter " + ms(c.perimeter_us) + " ms, " +
		std::to_string(A) + " bins, " +
		(s.exact ? "exact search" : "heuristic search") +
		(c.smeared ? ", periods smeared (no common circle under the cap)" : "");
	t += "<text x=\"10\" y=\"" + num(y) + "\">" + info + "</text>\n";
	y += legend_line;
	info = "score " + num(s.score, 4) + " (unshifted " +
		num(s.score_unshifted, 4) + "), over capacity on " +
		num(100.0 * s.over_fraction, 1) + "% of the circle, " +
		(capacity_mbps ? "capacity " + std::to_string(capacity_mbps) + " Mb/s"
			       : std::string("capacity unknown"));
	t += "<text x=\"10\" y=\"" + num(y) + "\">" + info + "</text>\n";
	y += legend_line;
	t += "<text x=\"10\" y=\"" + num(y) + "\" fill=\"#555555\">rings: one per "
	     "job, inner half before rotation (pale), outer half after; outer "
	     "ring: total demand, dashed circle = capacity</text>\n";
	for (size_t j = 0; j < n; j++) {
		y += legend_line;
		const char *colour = kColours[j % kNColours];
		std::string label = labels && labels[j]
			? xml_escape(labels[j], kLabelMax)
			: "job " + std::to_string(j);
		t += "<rect x=\"10\" y=\"" + num(y - 10) + "\" width=\"12\" height=\"12\" fill=\"" +
		     colour + "\"/>\n";
		t += "<text x=\"28\" y=\"" + num(y) + "\">" + label + ": gate period " +
		     ms(c.gate_period_us[j]) + " ms, shift " + ms(s.shift_us[j]) + " ms" +
		     (jobs[j].fixed_shift_us ? " (fixed)" : "") +
		     (c.spread[j] ? " (spread)" : "") + "</text>\n";
	}
	t += "</svg>\n";

	if (fwrite(t.data(), 1, t.size(), out) != t.size() || fflush(out) != 0 ||
	    ferror(out))
		fail(ORRERY_EIO, "writing the SVG failed");
}

}  // namespace orrery
