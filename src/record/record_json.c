/* SPDX-License-Identifier: BSD-3-Clause */
/* record_json.c: the JSON reader of record_json.h: recursive descent over the text, nodes and
 * decoded strings carved from one arena sized from the text (a node per value at most, a
 * string never longer than its source).
 */
#include "record_json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct parser {
    const char *p, *end, *start;
    char *arena;
    size_t used, size;
    char *err;
    size_t errlen;
    int depth;
};

static void *take(struct parser *ps, size_t n)
{
    n = (n + 15) & ~(size_t)15;
    if (ps->used + n > ps->size)
        return NULL;
    void *at = ps->arena + ps->used;
    ps->used += n;
    return at;
}

static int fail(struct parser *ps, const char *what)
{
    if (!ps->err[0])
        snprintf(ps->err, ps->errlen, "%s at byte %ld", what, (long)(ps->p - ps->start));
    return -1;
}

static void skip_space(struct parser *ps)
{
    while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r'))
        ps->p++;
}

static int hex4(const char *s, unsigned *out)
{
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        char c = s[i];
        v <<= 4;
        if (c >= '0' && c <= '9')
            v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f')
            v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            v |= (unsigned)(c - 'A' + 10);
        else
            return -1;
    }
    *out = v;
    return 0;
}

static char *utf8(char *o, unsigned cp)
{
    if (cp < 0x80) {
        *o++ = (char)cp;
    } else if (cp < 0x800) {
        *o++ = (char)(0xC0 | (cp >> 6));
        *o++ = (char)(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        *o++ = (char)(0xE0 | (cp >> 12));
        *o++ = (char)(0x80 | ((cp >> 6) & 0x3F));
        *o++ = (char)(0x80 | (cp & 0x3F));
    } else {
        *o++ = (char)(0xF0 | (cp >> 18));
        *o++ = (char)(0x80 | ((cp >> 12) & 0x3F));
        *o++ = (char)(0x80 | ((cp >> 6) & 0x3F));
        *o++ = (char)(0x80 | (cp & 0x3F));
    }
    return o;
}

/* A string at ps->p (its opening quote), decoded into the arena. */
static char *parse_string(struct parser *ps)
{
    ps->p++;
    const char *q = ps->p;
    while (q < ps->end && *q != '"')
        q += (*q == '\\') ? 2 : 1;
    if (q >= ps->end)
        return fail(ps, "unterminated string"), NULL;
    char *out = take(ps, (size_t)(q - ps->p) + 1), *o = out;
    if (!out)
        return fail(ps, "out of memory"), NULL;
    while (*ps->p != '"') {
        unsigned char c = (unsigned char)*ps->p;
        if (c < 0x20)
            return fail(ps, "control character in a string"), NULL;
        if (c != '\\') {
            *o++ = (char)c;
            ps->p++;
            continue;
        }
        char e = ps->p[1];
        ps->p += 2;
        switch (e) {
        case '"':
            *o++ = '"';
            break;
        case '\\':
            *o++ = '\\';
            break;
        case '/':
            *o++ = '/';
            break;
        case 'b':
            *o++ = '\b';
            break;
        case 'f':
            *o++ = '\f';
            break;
        case 'n':
            *o++ = '\n';
            break;
        case 'r':
            *o++ = '\r';
            break;
        case 't':
            *o++ = '\t';
            break;
        case 'u': {
            unsigned cp, lo;
            if (ps->end - ps->p < 4 || hex4(ps->p, &cp))
                return fail(ps, "bad \\u escape"), NULL;
            ps->p += 4;
            if (cp >= 0xD800 && cp < 0xDC00) {
                if (ps->end - ps->p < 6 || ps->p[0] != '\\' || ps->p[1] != 'u' ||
                    hex4(ps->p + 2, &lo) || lo < 0xDC00 || lo > 0xDFFF)
                    return fail(ps, "bad surrogate pair"), NULL;
                ps->p += 6;
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            } else if (cp >= 0xDC00 && cp < 0xE000) {
                return fail(ps, "bad surrogate pair"), NULL;
            }
            if (cp == 0)
                return fail(ps, "NUL in a string"), NULL;
            o = utf8(o, cp); /* never longer than the 6-12 bytes it came from */
            break;
        }
        default:
            return fail(ps, "bad escape"), NULL;
        }
    }
    ps->p++;
    *o = 0;
    return out;
}

static int literal(struct parser *ps, const char *word)
{
    size_t n = strlen(word);
    if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, word, n))
        return fail(ps, "unexpected character");
    ps->p += n;
    return 0;
}

static struct json *parse_value(struct parser *ps);

static int parse_number(struct parser *ps, struct json *node)
{
    const char *s = ps->p;
    if (s < ps->end && *s == '-')
        s++;
    if (s >= ps->end || !(*s >= '0' && *s <= '9'))
        return fail(ps, "unexpected character");
    if (*s == '0')
        s++;
    else
        while (s < ps->end && *s >= '0' && *s <= '9')
            s++;
    if (s < ps->end && *s == '.') {
        s++;
        if (s >= ps->end || !(*s >= '0' && *s <= '9'))
            return fail(ps, "bad number");
        while (s < ps->end && *s >= '0' && *s <= '9')
            s++;
    }
    if (s < ps->end && (*s == 'e' || *s == 'E')) {
        s++;
        if (s < ps->end && (*s == '+' || *s == '-'))
            s++;
        if (s >= ps->end || !(*s >= '0' && *s <= '9'))
            return fail(ps, "bad number");
        while (s < ps->end && *s >= '0' && *s <= '9')
            s++;
    }
    char buf[64];
    size_t n = (size_t)(s - ps->p);
    if (n >= sizeof buf)
        return fail(ps, "number too long");
    memcpy(buf, ps->p, n);
    buf[n] = 0;
    node->number = strtod(buf, NULL);
    ps->p = s;
    return 0;
}

/* The members or elements of a container whose opening bracket was read. */
static int parse_children(struct parser *ps, struct json *node, char close)
{
    struct json **tail = &node->child;
    skip_space(ps);
    if (ps->p < ps->end && *ps->p == close) {
        ps->p++;
        return 0;
    }
    for (;;) {
        char *key = NULL;
        skip_space(ps);
        if (close == '}') {
            if (ps->p >= ps->end || *ps->p != '"')
                return fail(ps, "expected a member name");
            if (!(key = parse_string(ps)))
                return -1;
            skip_space(ps);
            if (ps->p >= ps->end || *ps->p != ':')
                return fail(ps, "expected ':'");
            ps->p++;
        }
        struct json *child = parse_value(ps);
        if (!child)
            return -1;
        child->key = key;
        *tail = child;
        tail = &child->next;
        skip_space(ps);
        if (ps->p < ps->end && *ps->p == ',') {
            ps->p++;
            continue;
        }
        if (ps->p < ps->end && *ps->p == close) {
            ps->p++;
            return 0;
        }
        return fail(ps, close == '}' ? "expected ',' or '}'" : "expected ',' or ']'");
    }
}

static struct json *parse_value(struct parser *ps)
{
    skip_space(ps);
    if (ps->p >= ps->end)
        return fail(ps, "unexpected end"), NULL;
    if (++ps->depth > 64)
        return fail(ps, "nested too deep"), NULL;
    struct json *node = take(ps, sizeof *node);
    if (!node)
        return fail(ps, "out of memory"), NULL;
    memset(node, 0, sizeof *node);
    int rc = 0;
    switch (*ps->p) {
    case '{':
        ps->p++;
        node->kind = JSON_OBJECT;
        rc = parse_children(ps, node, '}');
        break;
    case '[':
        ps->p++;
        node->kind = JSON_ARRAY;
        rc = parse_children(ps, node, ']');
        break;
    case '"':
        node->kind = JSON_STRING;
        rc = (node->string = parse_string(ps)) ? 0 : -1;
        break;
    case 't':
        node->kind = JSON_BOOL;
        node->number = 1;
        rc = literal(ps, "true");
        break;
    case 'f':
        node->kind = JSON_BOOL;
        rc = literal(ps, "false");
        break;
    case 'n':
        node->kind = JSON_NULL;
        rc = literal(ps, "null");
        break;
    default:
        node->kind = JSON_NUMBER;
        rc = parse_number(ps, node);
    }
    ps->depth--;
    return rc ? NULL : node;
}

struct json *json_parse(const char *text, size_t len, char *err, size_t errlen)
{
    struct parser ps = {.p = text, .end = text + len, .start = text, .err = err, .errlen = errlen};
    err[0] = 0;
    /* each value takes at least one byte of text: a node per byte bounds the nodes */
    ps.size = 64 + len * (sizeof(struct json) + 16) + len + 16;
    if (!(ps.arena = malloc(ps.size))) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    struct json *root = parse_value(&ps);
    if (root) {
        skip_space(&ps);
        if (ps.p != ps.end) {
            fail(&ps, "text after the value");
            root = NULL;
        }
    }
    if (!root) {
        free(ps.arena);
        return NULL;
    }
    return root; /* the root is the arena's first node */
}

void json_free(struct json *root)
{
    free(root);
}

const struct json *json_get(const struct json *obj, const char *key)
{
    if (!obj || obj->kind != JSON_OBJECT)
        return NULL;
    for (const struct json *m = obj->child; m; m = m->next)
        if (strcmp(m->key, key) == 0)
            return m;
    return NULL;
}

const struct json *json_at(const struct json *arr, int i)
{
    if (!arr || arr->kind != JSON_ARRAY)
        return NULL;
    const struct json *e = arr->child;
    while (e && i-- > 0)
        e = e->next;
    return e;
}

const char *json_str(const struct json *obj, const char *key)
{
    const struct json *v = json_get(obj, key);
    return v && v->kind == JSON_STRING ? v->string : NULL;
}

double json_num(const struct json *obj, const char *key, double otherwise)
{
    const struct json *v = json_get(obj, key);
    return v && v->kind == JSON_NUMBER ? v->number : otherwise;
}
