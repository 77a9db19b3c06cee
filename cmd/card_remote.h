/*
 * card_remote.h (cmd/): what `skillsync card` does over the network (cmd/card_remote.c): my
 * published card read and replaced under a guard, and anyone's card read and shown. cmd/cmd_card.c
 * builds.
 */
#ifndef SS_CMD_CARD_REMOTE_H
#define SS_CMD_CARD_REMOTE_H

#include <stdbool.h>

#include "cmd/cmd.h"
#include "core/agent/card.h"
#include "sync/net/http.h"
#include "sync/net/xrpc.h"

/* My repo's card as read before a publish. */
typedef struct cli_card_remote {
	ss_http *http;
	ss_xrpc *x;
	char *cid;        /* the card's CID now; NULL: there is none */
	char *created_at; /* its createdAt when valid; NULL otherwise */
} cli_card_remote;

/*
 * Opens my session and reads my card. A card there whose CID is not the one this clone last
 * published (config "card.cid") was changed elsewhere: SS_ECONFLICT, unless force.
 */
int cli_card_read_mine(ss_ctx *ctx, bool force, cli_card_remote *r);
/* Writes card as my card (swapRecord: r->cid, or none), remembers its CID and createdAt in
 * the config; *uri (free()) is where it went. SS_ECONFLICT when it changed meanwhile. */
int cli_card_put(ss_ctx *ctx, cli_card_remote *r, const ss_card *card, char **uri);
void cli_card_remote_release(cli_card_remote *r);

/* After a push, with card.auto set (card --publish --auto): publishes the card again when what
 * it says changed. A failure is a warning on stderr: the push's records landed anyway. */
void cli_card_auto(ss_ctx *ctx);

/* `card --show <who>`: prints who's card (text or JSON) and returns the exit code. */
int cli_card_show(ss_ctx *ctx, const char *who, bool json);

#endif
