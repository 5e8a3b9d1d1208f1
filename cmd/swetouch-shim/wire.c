// The session protocol as the shim's fast path speaks it (see fast.c and
// docs/protocol.md): request lines written by hand, the hub's answers
// read just far enough, over a Unix socket.

#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "wire.h"


void buf_put(struct buf *b, const void *s, size_t n) {
	if (b->bad) return;
	if (b->n + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		while (cap < b->n + n + 1) cap *= 2;
		char *p = realloc(b->p, cap);
		if (!p) {
			b->bad = 1;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->n, s, n);
	b->n += n;
	b->p[b->n] = 0;
}

void buf_puts(struct buf *b, const char *s) { buf_put(b, s, strlen(s)); }

// buf_json appends s as a JSON string. Bytes that are not UTF-8 pass as
// they are: the hub's decoder reads each as U+FFFD, which is what the Go
// shim writes for them.
void buf_json(struct buf *b, const char *s, size_t n) {
	static const char hex[] = "0123456789abcdef";
	buf_put(b, "\"", 1);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		char esc[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
		switch (c) {
		case '"': buf_put(b, "\\\"", 2); break;
		case '\\': buf_put(b, "\\\\", 2); break;
		case '\n': buf_put(b, "\\n", 2); break;
		case '\r': buf_put(b, "\\r", 2); break;
		case '\t': buf_put(b, "\\t", 2); break;
		default:
			if (c < 0x20) buf_put(b, esc, 6);
			else buf_put(b, &s[i], 1);
		}
	}
	buf_put(b, "\"", 1);
}

void buf_int(struct buf *b, long v) {
	char s[24];
	buf_put(b, s, (size_t)snprintf(s, sizeof s, "%ld", v));
}

int write_all(int fd, const char *p, size_t n) {
	while (n > 0) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR) continue;
		if (w <= 0) return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

// send_all writes to the hub. MSG_NOSIGNAL: a hub that has gone away is
// an error to skip past, as on the Go path, not a SIGPIPE that would kill
// the shim and look to the agent as if its command had died.
int send_all(int fd, const char *p, size_t n) {
	while (n > 0) {
		ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
		if (w < 0 && errno == EINTR) continue;
		if (w <= 0) return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

// read_line reads one line (without its newline) from the hub.
static int read_line(int fd, struct buf *line) {
	line->n = 0;
	for (;;) {
		char c[4096];
		ssize_t r = read(fd, c, sizeof c);
		if (r < 0 && errno == EINTR) continue;
		if (r <= 0) return -1;
		char *nl = memchr(c, '\n', (size_t)r);
		buf_put(line, c, nl ? (size_t)(nl - c) : (size_t)r);
		if (line->bad) return -1;
		if (nl) return 0; // the hub answers one line per request
	}
}

// --- the hub's answer: a JSON object read just far enough ---

struct lexer {
	const char *p, *end;
	int bad;
};

static void space(struct lexer *l) {
	while (l->p < l->end && (*l->p == ' ' || *l->p == '\t' || *l->p == '\n' || *l->p == '\r')) l->p++;
}

static int next_is(struct lexer *l, char c) {
	space(l);
	if (l->p < l->end && *l->p == c) {
		l->p++;
		return 1;
	}
	return 0;
}

static void buf_rune(struct buf *b, unsigned r) {
	char u[4];
	if (r < 0x80) {
		u[0] = (char)r;
		buf_put(b, u, 1);
	} else if (r < 0x800) {
		u[0] = (char)(0xc0 | r >> 6), u[1] = (char)(0x80 | (r & 0x3f));
		buf_put(b, u, 2);
	} else if (r < 0x10000) {
		u[0] = (char)(0xe0 | r >> 12), u[1] = (char)(0x80 | (r >> 6 & 0x3f)), u[2] = (char)(0x80 | (r & 0x3f));
		buf_put(b, u, 3);
	} else {
		u[0] = (char)(0xf0 | r >> 18), u[1] = (char)(0x80 | (r >> 12 & 0x3f)), u[2] = (char)(0x80 | (r >> 6 & 0x3f)),
		u[3] = (char)(0x80 | (r & 0x3f));
		buf_put(b, u, 4);
	}
}

static int hex4(struct lexer *l, unsigned *r) {
	if (l->end - l->p < 4) return 0;
	*r = 0;
	for (int i = 0; i < 4; i++) {
		char c = *l->p++;
		*r <<= 4;
		if (c >= '0' && c <= '9') *r |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f') *r |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F') *r |= (unsigned)(c - 'A' + 10);
		else return 0;
	}
	return 1;
}

// str reads a string into out (NULL: skipped), escapes decoded as
// encoding/json decodes them (a lone surrogate is U+FFFD).
static void str(struct lexer *l, struct buf *out) {
	struct buf skip = {0};
	if (!out) out = &skip;
	if (!next_is(l, '"')) {
		l->bad = 1;
		return;
	}
	while (l->p < l->end && *l->p != '"') {
		if (*l->p != '\\') {
			const char *s = l->p;
			while (l->p < l->end && *l->p != '"' && *l->p != '\\') l->p++;
			if (out != &skip) buf_put(out, s, (size_t)(l->p - s));
			continue;
		}
		if (++l->p >= l->end) break;
		char c = *l->p++;
		unsigned r;
		switch (c) {
		case 'b': r = '\b'; break;
		case 'f': r = '\f'; break;
		case 'n': r = '\n'; break;
		case 'r': r = '\r'; break;
		case 't': r = '\t'; break;
		case 'u':
			if (!hex4(l, &r)) {
				l->bad = 1;
				return;
			}
			if (r >= 0xd800 && r < 0xdc00) {
				unsigned lo;
				struct lexer save = *l;
				if (l->end - l->p >= 6 && l->p[0] == '\\' && l->p[1] == 'u' && (l->p += 2, hex4(l, &lo)) && lo >= 0xdc00 &&
				    lo < 0xe000) {
					r = 0x10000 + ((r - 0xd800) << 10) + (lo - 0xdc00);
				} else {
					*l = save;
					r = 0xfffd;
				}
			} else if (r >= 0xdc00 && r < 0xe000) {
				r = 0xfffd;
			}
			break;
		default: r = (unsigned char)c; // \" \\ \/
		}
		if (out != &skip) buf_rune(out, r);
	}
	if (l->p >= l->end) l->bad = 1;
	else l->p++;
}

static void skip_value(struct lexer *l, int depth);

// object reads {"key": value, ...}, handing each key to field, which
// reads the value (or skips it).
static void object(struct lexer *l, void (*field)(struct lexer *, const char *, void *), void *arg) {
	if (!next_is(l, '{')) {
		l->bad = 1;
		return;
	}
	if (next_is(l, '}')) return;
	do {
		struct buf key = {0};
		str(l, &key);
		if (l->bad || !next_is(l, ':')) {
			l->bad = 1;
			free(key.p);
			return;
		}
		field(l, key.p ? key.p : "", arg);
		free(key.p);
	} while (!l->bad && next_is(l, ','));
	if (!l->bad && !next_is(l, '}')) l->bad = 1;
}

static void skip_field(struct lexer *l, const char *key, void *arg) {
	(void)key;
	skip_value(l, *(int *)arg);
}

static void skip_value(struct lexer *l, int depth) {
	space(l);
	if (l->p >= l->end || depth > 64) {
		l->bad = 1;
		return;
	}
	switch (*l->p) {
	case '"': str(l, NULL); return;
	case '{': {
		int d = depth + 1;
		object(l, skip_field, &d);
		return;
	}
	case '[':
		l->p++;
		if (next_is(l, ']')) return;
		do skip_value(l, depth + 1);
		while (!l->bad && next_is(l, ','));
		if (!l->bad && !next_is(l, ']')) l->bad = 1;
		return;
	}
	const char *s = l->p; // a number or a literal
	while (l->p < l->end && !strchr(",}] \t\r\n", *l->p)) l->p++;
	if (l->p == s) l->bad = 1;
}

static void message_field(struct lexer *l, const char *key, void *arg) {
	struct reply *r = arg;
	if (strcmp(key, "text") != 0) {
		skip_value(l, 2);
		return;
	}
	struct buf text = {0};
	str(l, &text);
	while (text.n > 0 && text.p[text.n - 1] == '\n') text.n--;
	buf_puts(&r->said, "\n<user-message>\n");
	buf_put(&r->said, text.p ? text.p : "", text.n);
	buf_puts(&r->said, "\n</user-message>\n");
	free(text.p);
}

static void reply_field(struct lexer *l, const char *key, void *arg) {
	struct reply *r = arg;
	space(l);
	if (strcmp(key, "ok") == 0 && l->end - l->p >= 4 && memcmp(l->p, "true", 4) == 0) {
		r->ok = 1;
		l->p += 4;
	} else if (strcmp(key, "armed") == 0 && l->end - l->p >= 4 && memcmp(l->p, "true", 4) == 0) {
		r->armed = 1;
		l->p += 4;
	} else if (strcmp(key, "id") == 0) {
		char *e;
		r->id = strtol(l->p, &e, 10);
		if (e == l->p) l->bad = 1;
		l->p = e;
	} else if (strcmp(key, "messages") == 0 && next_is(l, '[')) {
		if (next_is(l, ']')) return;
		do object(l, message_field, r);
		while (!l->bad && next_is(l, ','));
		if (!l->bad && !next_is(l, ']')) l->bad = 1;
	} else {
		skip_value(l, 1);
	}
}

// hub_answer reads the hub's answer to a request; 0 when it says ok.
int hub_answer(int hub, struct reply *r) {
	struct buf line = {0};
	int err = read_line(hub, &line) < 0;
	if (!err) {
		struct lexer l = {line.p, line.p + line.n, 0};
		object(&l, reply_field, r);
		err = l.bad || !r->ok;
	}
	free(line.p);
	return err ? -1 : 0;
}

// hub_call sends a request line and reads its answer.
int hub_call(int hub, struct buf *req, struct reply *r) {
	if (req->bad || send_all(hub, req->p, req->n) < 0) return -1;
	return hub_answer(hub, r);
}

// hub_dial connects to the hub's socket; -1 when it cannot.
int hub_dial(const char *path) {
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	if (strlen(path) >= sizeof a.sun_path) return -1;
	strcpy(a.sun_path, path);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) return -1;
	int r;
	while ((r = connect(fd, (struct sockaddr *)&a, sizeof a)) < 0 && errno == EINTR) {
	}
	if (r < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

