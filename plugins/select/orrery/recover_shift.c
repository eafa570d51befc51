/*
 * recover_shift.c - the Slurm-free arithmetic of recover.c.
 */
#include "recover.h"

int64_t orr_recover_rebase_shift(int64_t shift_us, int64_t period_us,
				 int64_t from_epoch_us, int64_t to_epoch_us)
{
	int64_t s;

	if (period_us <= 0)
		return shift_us;
	/* slot instants: from + shift + k*period = to + s + k'*period */
	s = (shift_us % period_us + (from_epoch_us - to_epoch_us) % period_us) %
	    period_us;
	return s < 0 ? s + period_us : s;
}
