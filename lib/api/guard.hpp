// Run C++ code behind the C API: catch everything, fill orrery_error_t.
#pragma once

#include <cstdio>
#include <new>

#include "core/error.hpp"

namespace orrery {

void set_error(orrery_error_t *err, int code, const char *msg);

template <typename F>
int guard(orrery_error_t *err, F &&f) noexcept
{
	try {
		f();
		if (err) {
			err->code = ORRERY_OK;
			err->message[0] = '\0';
		}
		return ORRERY_OK;
	} catch (const Error &e) {
		set_error(err, e.code(), e.what());
		return e.code();
	} catch (const std::bad_alloc &) {
		set_error(err, ORRERY_ENOMEM, "out of memory");
		return ORRERY_ENOMEM;
	} catch (const std::exception &e) {
		set_error(err, ORRERY_EINTERNAL, e.what());
		return ORRERY_EINTERNAL;
	} catch (...) {
		set_error(err, ORRERY_EINTERNAL, "unknown exception");
		return ORRERY_EINTERNAL;
	}
}

}  // namespace orrery
