// Errors inside liborrery are exceptions of one type; the C API turns them
// into an orrery_rc and a message (api/guard.hpp).  Messages name the
// offending token and what is accepted, because they reach users verbatim
// (sbatch: error: orrery: --comm-profile: ...).
#pragma once

#include <stdexcept>
#include <string>

#include "orrery.h"

namespace orrery {

class Error : public std::runtime_error {
public:
	Error(orrery_rc code, const std::string &msg)
		: std::runtime_error(msg), code_(code) {}
	orrery_rc code() const noexcept { return code_; }

private:
	orrery_rc code_;
};

[[noreturn]] inline void fail(orrery_rc code, const std::string &msg)
{
	throw Error(code, msg);
}

// Throws ORRERY_EINTERNAL when ORRERY_FAULT names `point` (hardening tests).
void fault_point(const char *point);

}  // namespace orrery
