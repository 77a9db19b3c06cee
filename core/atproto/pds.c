/* pds.c: splitting writes into requests by the PDS's limits (see core/atproto/pds.h). */
#include "core/atproto/pds.h"

size_t ss_pds_batch_fit(const size_t *sizes, size_t n, size_t room)
{
	size_t count = 0, bytes = 0;

	while (count < n && count < SS_PDS_MAX_WRITES &&
	       (count == 0 || bytes + sizes[count] <= room))
		bytes += sizes[count++];
	return count;
}
