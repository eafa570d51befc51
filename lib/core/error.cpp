#include <cstdlib>
#include <cstring>
#include <new>
#include <stdexcept>
#include <string>

#include "api/guard.hpp"
#include "config.h"

namespace orrery {

void set_error(orrery_error_t *err, int code, const char *msg)
{
	if (!err)
		return;
	err->code = code;
	// Keep one line: messages reach logs and terminals verbatim.
	size_t i = 0;
	for (; msg && msg[i] && i + 1 < sizeof(err->message); i++)
		err->message[i] = (msg[i] == '\n' || msg[i] == '\r') ? ' ' : msg[i];
	err->message[i] = '\0';
}

namespace {

// What an armed point throws: ORRERY_FAULT=point[:kind],...
enum class FaultKind { none, error, exception, bad_alloc, unknown };

FaultKind fault_kind(const char *point)
{
	const char *f = getenv("ORRERY_FAULT");
	if (!f || !point || !*point)
		return FaultKind::none;
	// Comma-separated list of points; "all" arms every point.  A point
	// may carry ":exception", ":bad_alloc" or ":unknown" to throw
	// something other than orrery::Error (the other catch clauses of
	// api/guard.hpp); ":error" is the default.
	size_t n = strlen(point);
	for (const char *s = f; *s;) {
		const char *e = strchr(s, ',');
		size_t len = e ? (size_t)(e - s) : strlen(s);
		const char *colon = (const char *)memchr(s, ':', len);
		size_t name_len = colon ? (size_t)(colon - s) : len;
		if ((name_len == n && !strncmp(s, point, n)) ||
		    (name_len == 3 && !strncmp(s, "all", 3))) {
			std::string kind = colon ? std::string(colon + 1, s + len) : "";
			if (kind == "exception")
				return FaultKind::exception;
			if (kind == "bad_alloc")
				return FaultKind::bad_alloc;
			if (kind == "unknown")
				return FaultKind::unknown;
			return FaultKind::error;
		}
		if (!e)
			break;
		s = e + 1;
	}
	return FaultKind::none;
}

}  // namespace

void fault_point(const char *point)
{
	switch (fault_kind(point)) {
	case FaultKind::none:
		return;
	case FaultKind::exception:
		throw std::logic_error(std::string("unexpected exception injected at '") +
				       point + "'");
	case FaultKind::bad_alloc:
		throw std::bad_alloc();
	case FaultKind::unknown:
		throw 42;  // not derived from std::exception
	case FaultKind::error:
		break;
	}
	fail(ORRERY_EINTERNAL, std::string("fault injected at '") + point + "'");
}

}  // namespace orrery

extern "C" {

const char *orrery_strerror(int code)
{
	switch (code) {
	case ORRERY_OK: return "success";
	case ORRERY_EINVAL: return "invalid input";
	case ORRERY_ERANGE: return "value out of range";
	case ORRERY_ELIMIT: return "size limit exceeded";
	case ORRERY_ENOENT: return "not found";
	case ORRERY_EIO: return "I/O error";
	case ORRERY_ECORRUPT: return "corrupt or truncated data";
	case ORRERY_EVERSION: return "unsupported format version";
	case ORRERY_ENOMEM: return "out of memory";
	case ORRERY_ESTATE: return "invalid state for this call";
	case ORRERY_EINTERNAL: return "internal error";
	}
	return "unknown error";
}

const char *orrery_version(void) { return PACKAGE_VERSION; }

void orrery_free(void *p) { free(p); }

int orrery_fault_armed(const char *point)
{
	return orrery::fault_kind(point) != orrery::FaultKind::none;
}

}  // extern "C"
