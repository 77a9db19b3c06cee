/*
 * pds.h: the sync tests' view of the real test PDS (tests/pds/start wrote $SS_PDS_INFO):
 * its URLs, the shared accounts, and fresh accounts of a test's own (tests/pds/account).
 * ss_test_pds() also points SKILLSYNC_PLC_URL and SKILLSYNC_HANDLE_RESOLVER at it.
 */
#ifndef SS_TEST_PDS_H
#define SS_TEST_PDS_H

typedef struct ss_test_account {
	char *handle;
	char *did;
	char *password;
	char *access_jwt;
	char *refresh_jwt;
} ss_test_account;

typedef struct ss_test_pds_info {
	const char *pds;
	const char *plc;
} ss_test_pds_info;

/* The running PDS (fails the test when $SS_PDS_INFO is missing or unreadable). */
const ss_test_pds_info *ss_test_pds(void);
/* One of the accounts the fixture made ("alice", "bob", "carol"); borrowed. */
const ss_test_account *ss_test_pds_account(const char *name);
/* A fresh account named <name>-<random>.test; free with ss_test_account_free. */
ss_test_account *ss_test_pds_new_account(const char *name);
void ss_test_account_free(ss_test_account *a);

#endif
