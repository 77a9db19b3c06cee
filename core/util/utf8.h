/*
 * utf8.h: the UTF-8 checks the lexicon's limits need (lengths count bytes, text must be valid
 * UTF-8). Strict: no overlong forms, no surrogates, nothing past U+10FFFF.
 */
#ifndef SS_UTF8_H
#define SS_UTF8_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/util/buf.h"

/* Decodes the sequence at s (n > 0 bytes left) into *cp; returns its length, 0 if invalid. */
size_t ss_utf8_next(const unsigned char *s, size_t n, uint32_t *cp);
bool ss_utf8_valid(const char *s, size_t len);
/* Whether s is text: valid UTF-8 without a NUL byte (else a binary file, carried as a blob, held
 * by the review gate, served as base64). */
bool ss_utf8_text(const char *s, size_t len);
/* The number of code points in valid UTF-8 s. */
size_t ss_utf8_count(const char *s, size_t len);
/* The longest prefix of s of at most max bytes that ends on a character boundary. */
size_t ss_utf8_cut(const char *s, size_t len, size_t max);

/*
 * Whether code point cp is space as Python's str.isspace() says, which the Agent Skills
 * reference implementation strips from a name and a description: Unicode's White_Space and
 * the four separators U+001C-U+001F.
 */
bool ss_utf8_space(uint32_t cp);
/* The part of s (len bytes) without the space (ss_utf8_space) around it: *start and *end are
 * its bounds (equal when s is only space). Bytes that are not UTF-8 are not space. */
void ss_utf8_trim(const char *s, size_t len, size_t *start, size_t *end);

/*
 * The one rule for text that came from elsewhere (a server, a record, a DID document) before it
 * reaches a terminal, a JSON output or a one-line field of a commit message: a character is
 * unsafe when it is a control character (C0 but tab, DEL, C1), a bidirectional or invisible
 * format control (U+061C, U+200B-U+200F, U+202A-U+202E, U+2060-U+2069, U+FEFF), a tag character
 * (U+E0000-U+E007F: invisible text an agent reads, docs/AUDIT.md), or a byte that is not valid
 * UTF-8.
 *
 * SS_ESCAPE_TEXT writes each byte of an unsafe character as \xNN (a newline stays on the line:
 * "\x0a"); SS_ESCAPE_JSON writes the inside of a JSON string: `"` and `\` escaped, tab, newline
 * and carriage return as \t \n \r, other unsafe characters as \uXXXX (a surrogate pair past
 * U+FFFF), invalid bytes as \ufffd.
 * SS_ESCAPE_XML writes XML character data or an attribute value: & < > " ' as entities, tab,
 * newline and carriage return as &#9; &#10; &#13;, and other unsafe characters and invalid
 * bytes as \xNN like SS_ESCAPE_TEXT (XML 1.0 cannot hold most control characters at all).
 */
typedef enum ss_escape_style { SS_ESCAPE_TEXT, SS_ESCAPE_JSON, SS_ESCAPE_XML } ss_escape_style;

/* Appends len bytes of s to out, escaped in style. */
void ss_utf8_escape(ss_buf *out, const char *s, size_t len, ss_escape_style style);
/* A note's first line as text: at most max bytes of it (0: no cap) cut on a character
 * boundary, escaped, then " ..." when something was left out (a cut or more lines). */
void ss_utf8_escape_line(ss_buf *out, const char *s, size_t max);

#endif
