/* card_json.c: the card as escaped JSON, as text for a terminal, and as an A2A AgentCard. */
#include "core/agent/card_priv.h"

#include <string.h>

#include "core/util/utf8.h"

static void indent_to(ss_buf *out, int indent)
{
	ss_buf_putc(out, '\n');
	for (int i = 0; i < indent; i++)
		ss_buf_puts(out, "  ");
}

static void emit_string(const char *s, size_t len, ss_buf *out)
{
	ss_buf_putc(out, '"');
	ss_utf8_escape(out, s, len, SS_ESCAPE_JSON);
	ss_buf_putc(out, '"');
}

void ss_card__emit(json_t *v, int indent, ss_buf *out)
{
	const char *key;
	json_t *item;
	size_t i, n = 0;

	switch (json_typeof(v)) {
	case JSON_OBJECT:
		ss_buf_putc(out, '{');
		json_object_foreach(v, key, item)
		{
			ss_buf_puts(out, n++ ? "," : "");
			indent_to(out, indent + 1);
			emit_string(key, strlen(key), out);
			ss_buf_puts(out, ": ");
			ss_card__emit(item, indent + 1, out);
		}
		if (n)
			indent_to(out, indent);
		ss_buf_putc(out, '}');
		break;
	case JSON_ARRAY:
		ss_buf_putc(out, '[');
		json_array_foreach(v, i, item)
		{
			ss_buf_puts(out, i ? "," : "");
			indent_to(out, indent + 1);
			ss_card__emit(item, indent + 1, out);
		}
		if (json_array_size(v))
			indent_to(out, indent);
		ss_buf_putc(out, ']');
		break;
	case JSON_STRING:
		emit_string(json_string_value(v), json_string_length(v), out);
		break;
	case JSON_INTEGER:
		ss_buf_printf(out, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		break;
	case JSON_TRUE:
		ss_buf_puts(out, "true");
		break;
	case JSON_FALSE:
		ss_buf_puts(out, "false");
		break;
	default: /* null; reals never pass the check */
		ss_buf_puts(out, "null");
	}
}

void ss_card_format_json(const ss_card *c, ss_buf *out)
{
	ss_card__emit(c->record, 0, out);
}

/* "<label>: <escaped text>\n" when obj has a string under key. */
static void line(ss_buf *out, const char *label, const json_t *obj, const char *key)
{
	const json_t *v = json_object_get(obj, key);

	if (!json_is_string(v))
		return;
	ss_buf_printf(out, "%s", label);
	ss_utf8_escape(out, json_string_value(v), json_string_length(v), SS_ESCAPE_TEXT);
	ss_buf_putc(out, '\n');
}

/* The strings of an array, escaped, joined by ", ". */
static void joined(ss_buf *out, const json_t *array)
{
	const json_t *item;
	size_t i;

	json_array_foreach(array, i, item)
	{
		if (!json_is_string(item))
			continue;
		ss_buf_puts(out, i ? ", " : "");
		ss_utf8_escape(out, json_string_value(item), json_string_length(item),
		               SS_ESCAPE_TEXT);
	}
}

void ss_card_format_text(const ss_card *c, ss_buf *out)
{
	const json_t *r = c->record, *skills = json_object_get(r, "skills"), *s;
	const json_t *provider = json_object_get(r, "provider");
	const json_t *caps = json_object_get(r, "capabilities");
	size_t i;

	line(out, "name:         ", r, "name");
	line(out, "description:  ", r, "description");
	line(out, "version:      ", r, "version");
	line(out, "url:          ", r, "url");
	line(out, "provider:     ", provider, "name");
	line(out, "provider url: ", provider, "url");
	if (json_is_array(json_object_get(caps, "protocols"))) {
		ss_buf_puts(out, "protocols:    ");
		joined(out, json_object_get(caps, "protocols"));
		ss_buf_putc(out, '\n');
	}
	line(out, "state:        ", caps, "statefulness");
	line(out, "memory:       ", caps, "memoryModel");
	line(out, "created:      ", r, "createdAt");
	line(out, "updated:      ", r, "updatedAt");
	ss_buf_printf(out, "skills:       %zu\n", json_array_size(skills));
	json_array_foreach(skills, i, s)
	{
		const json_t *id = json_object_get(s, "id"),
		             *desc = json_object_get(s, "description");

		ss_buf_puts(out, "  ");
		ss_utf8_escape(out, json_string_value(id), json_string_length(id), SS_ESCAPE_TEXT);
		ss_buf_puts(out, ": ");
		ss_utf8_escape(out, json_string_value(desc), json_string_length(desc),
		               SS_ESCAPE_TEXT);
		ss_buf_putc(out, '\n');
		if (json_array_size(json_object_get(s, "tags"))) {
			ss_buf_puts(out, "    tags: ");
			joined(out, json_object_get(s, "tags"));
			ss_buf_putc(out, '\n');
		}
	}
}

/* A2A's media types for the card's input and output words ("text" -> "text/plain"). */
static json_t *modes(const json_t *words)
{
	json_t *a = json_array();
	const json_t *w;
	size_t i;

	json_array_foreach(words, i, w)
	{
		const char *s = json_string_value(w);

		if (s)
			json_array_append_new(a, json_string(strcmp(s, "text") ? s : "text/plain"));
	}
	if (!json_array_size(a))
		json_array_append_new(a, json_string("text/plain"));
	return a;
}

static void copy(json_t *to, const char *to_key, const json_t *from, const char *from_key)
{
	json_t *v = json_object_get(from, from_key);

	if (v)
		json_object_set(to, to_key, v);
}

int ss_card_a2a(const ss_card *c, ss_buf *out, ss_error *err)
{
	const json_t *r = c->record, *provider = json_object_get(r, "provider"), *s;
	const json_t *caps = json_object_get(r, "capabilities");
	json_t *a, *iface, *skills, *acaps;
	size_t i;

	if (!json_is_string(json_object_get(r, "url")))
		return ss_error_set(err, SS_EINVALID,
		                    "an A2A agent card needs the agent's URL: set it with --url");
	a = json_object();
	copy(a, "name", r, "name");
	copy(a, "description", r, "description");
	iface = json_object();
	copy(iface, "url", r, "url");
	json_object_set_new(iface, "protocolBinding", json_string("JSONRPC"));
	json_object_set_new(iface, "protocolVersion", json_string(SS_CARD_A2A_VERSION));
	json_object_set_new(a, "supportedInterfaces", json_array());
	json_array_append_new(json_object_get(a, "supportedInterfaces"), iface);
	if (json_object_get(provider, "name") && json_object_get(provider, "url")) {
		json_t *p = json_object();

		copy(p, "organization", provider, "name");
		copy(p, "url", provider, "url");
		json_object_set_new(a, "provider", p);
	}
	copy(a, "version", r, "version");
	acaps = json_object();
	json_object_set_new(acaps, "streaming",
	                    json_boolean(json_is_true(json_object_get(caps, "streaming"))));
	json_object_set_new(acaps, "pushNotifications",
	                    json_boolean(json_is_true(json_object_get(caps, "pushNotifications"))));
	json_object_set_new(a, "capabilities", acaps);
	json_object_set_new(a, "defaultInputModes", modes(json_object_get(r, "defaultInputModes")));
	json_object_set_new(a, "defaultOutputModes",
	                    modes(json_object_get(r, "defaultOutputModes")));
	skills = json_array();
	json_array_foreach(json_object_get(r, "skills"), i, s)
	{
		json_t *k = json_object();

		copy(k, "id", s, "id");
		copy(k, "name", s, "name");
		copy(k, "description", s, "description");
		if (json_object_get(s, "tags"))
			copy(k, "tags", s, "tags");
		else
			json_object_set_new(k, "tags", json_array()); /* required by A2A */
		copy(k, "examples", s, "examples");
		json_array_append_new(skills, k);
	}
	json_object_set_new(a, "skills", skills);
	ss_card__emit(a, 0, out);
	json_decref(a);
	return 0;
}
