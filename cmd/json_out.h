/*
 * json_out.h: the one JSON writer of the commands' --json output (in the manner of git's
 * json-writer.h). Strings are escaped here and only here (ss_utf8_escape's JSON style: bytes
 * that are not UTF-8 and control characters come out as \u escapes), and the writer places
 * the commas: a command says what, never where the punctuation goes.
 *
 * It writes to its FILE * as it goes (no tree, nothing kept): begin an object or an array, put
 * values, end it. Every value function takes the member's key: a key in an object, NULL in an
 * array or at the top. A NULL string is null. cli_json_finish ends a document: it ends every
 * container still open, then the line.
 *
 *	cli_json w;
 *	cli_json_init(&w, stdout);
 *	cli_json_object(&w, NULL);
 *	cli_json_str(&w, "name", name);
 *	cli_json_array(&w, "files");
 *	cli_json_str(&w, NULL, path);
 *	cli_json_finish(&w);                -> {"name":"pdf","files":["SKILL.md"]}\n
 *
 * Layout: compact unless w.style is changed; a container keeps the style w.style had when it
 * began. CLI_JSON_SPACED puts a space after its commas and colons; CLI_JSON_LINES puts each
 * member on a line of its own, indented two spaces deeper than the container (`prompt`'s
 * layout, and git's "pretty"); CLI_JSON_FLAT does the same without the deeper indent (so a
 * member already laid out from the first column, like the card, lines up).
 */
#ifndef SS_CMD_JSON_OUT_H
#define SS_CMD_JSON_OUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

typedef enum cli_json_style {
	CLI_JSON_COMPACT,
	CLI_JSON_SPACED,
	CLI_JSON_LINES,
	CLI_JSON_FLAT,
} cli_json_style;

#define CLI_JSON_MAX_DEPTH 16

typedef struct cli_json_level {
	cli_json_style style;
	unsigned indent; /* of its members, in steps of two spaces */
	bool used;       /* a member was written: the next one needs a comma */
	char close;      /* '}' or ']' */
} cli_json_level;

typedef struct cli_json {
	FILE *out;
	cli_json_style style; /* the layout of the containers begun from now on */
	unsigned depth;       /* containers open; level[0] is the top */
	cli_json_level level[CLI_JSON_MAX_DEPTH];
} cli_json;

void cli_json_init(cli_json *w, FILE *out);
void cli_json_object(cli_json *w, const char *key);
void cli_json_array(cli_json *w, const char *key);
void cli_json_end(cli_json *w);
void cli_json_finish(cli_json *w);

void cli_json_str(cli_json *w, const char *key, const char *s);
void cli_json_strn(cli_json *w, const char *key, const char *s, size_t len);
void cli_json_int(cli_json *w, const char *key, intmax_t n);
void cli_json_bool(cli_json *w, const char *key, bool b);
void cli_json_null(cli_json *w, const char *key);
/* json as it is: text that is already JSON (the card core formats), never text from outside. */
void cli_json_raw(cli_json *w, const char *key, const char *json);

#endif
