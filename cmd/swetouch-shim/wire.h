// The session protocol as the shim's fast path speaks it: see wire.c.
#ifndef SWETOUCH_SHIM_WIRE_H
#define SWETOUCH_SHIM_WIRE_H

#include <stddef.h>

// buf is a growable byte buffer; on allocation failure it stays as it was
// and sets bad.
struct buf {
	char *p;
	size_t n, cap;
	int bad;
};

void buf_put(struct buf *b, const void *s, size_t n);
void buf_puts(struct buf *b, const char *s);
void buf_json(struct buf *b, const char *s, size_t n);
void buf_int(struct buf *b, long v);

// write_all writes to the agent's side (stdout, stderr); send_all to the
// hub's socket.
int write_all(int fd, const char *p, size_t n);
int send_all(int fd, const char *p, size_t n);

// reply is the hub's answer, as far as the shim reads it.
struct reply {
	int ok;
	long id;
	int armed; // begin's: an intervention can still fire, or a message waits
	struct buf said; // the messages, as the agent is shown them
};

// hub_dial connects to the hub's socket; -1 when it cannot.
int hub_dial(const char *path);
// hub_answer reads the answer to a request already sent; hub_call sends req and
// reads its answer. Each is 0 when the answer says ok.
int hub_answer(int hub, struct reply *r);
int hub_call(int hub, struct buf *req, struct reply *r);

#endif
