/*
 * write.h: the three kinds of a write to a repository (com.atproto.repo.applyWrites#create,
 * #update, #delete), shared by the plan of a push (core/diff/plan.h), its journal
 * (core/state/state_journal.h) and the transports (sync/transport/space.h).
 */
#ifndef SS_WRITE_H
#define SS_WRITE_H

typedef enum ss_write_op {
	SS_WRITE_CREATE,
	SS_WRITE_UPDATE,
	SS_WRITE_DELETE,
} ss_write_op;

#endif
