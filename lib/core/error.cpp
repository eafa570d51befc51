#include <cstdlib>
#include <cstring>
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

void fault_point(const char *point)
{
	if (orrery_fault_armed(point))
		fail(ORRERY_EINTERNAL,
		     std::string("fault injected at '") + point + "'");
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
	const char *f = getenv("ORRERY_FAULT");
	if (!f || !point || !*point)
		return 0;
	// Comma-separated list of points; "all" arms every point.
	size_t n = strlen(point);
	for (const char *s = f; *s;) {
		const char *e = strchr(s, ',');
		size_t len = e ? (size_t)(e - s) : strlen(s);
		if ((len == n && !strncmp(s, point, n)) ||
		    (len == 3 && !strncmp(s, "all", 3)))
			return 1;
		if (!e)
			break;
		s = e + 1;
	}
	return 0;
}

}  // extern "C"
