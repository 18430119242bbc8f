/*
 * The native relay: the plain statements of relayed sessions forwarded by one epoll thread per
 * process, so that their bytes never enter JavaScript (src/session/native-relay.ts hands the
 * two sockets of an idle session over and takes them back).
 *
 * While it holds a session, the thread forwards each client packet that is a COM_QUERY the
 * proxy leaves to the FE (the rule of src/router/statement-prefilter.ts, in C below) and walks
 * the FE's response to its end as protocol/response-tracker.ts does for COM_QUERY (OK, ERR,
 * result sets with and without CLIENT_DEPRECATE_EOF, SERVER_MORE_RESULTS_EXISTS chains). Bytes
 * the FE sends between responses are relayed as they are. At the first client command that is
 * anything else, a LOCAL INFILE request, or either side's end, it gives the session back with
 * every byte it still holds (client bytes not forwarded, bytes not yet written either way) and
 * the last status flags: nothing is lost and the session goes on in JavaScript.
 *
 * Backpressure: a side whose socket buffer is full gets the rest queued here, and the other side
 * is not read until it drains, as the JavaScript relay pauses a socket until 'drain'.
 *
 * Node keeps owning the descriptors (it closes them); this thread only reads and writes them
 * between attach and the moment it, or detach(), lets go. One mutex serialises the thread's
 * batches with attach/detach from Node's thread, so detach returns only once the thread is no
 * longer touching the pair.
 */
#define NAPI_VERSION 8
#include <node_api.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#define READ_SIZE 65536
/* Client bytes held while a response is in flight (command-phase.ts CLIENT_QUEUE_HIGH_WATER). */
#define CLIENT_HOLD_MAX (1u << 20)
#define MAX_PACKET_PAYLOAD 0xffffffu
/* Enough for an OK packet's header, two 9-byte lenencs and the status word (packet-walker.ts). */
#define PREFIX_SIZE 24
#define COM_QUERY 0x03
#define OK_HEADER 0x00
#define EOF_HEADER 0xfe
#define ERR_HEADER 0xff
#define LOCAL_INFILE_HEADER 0xfb
#define SERVER_MORE_RESULTS_EXISTS 0x0008

/* Why a session is given back; the numbers are HandbackReason in native-relay.ts. */
enum { R_COMMAND = 1, R_CLIENT_CLOSED = 2, R_UPSTREAM_CLOSED = 3, R_INFILE = 4 };
/* StatementKind of statement-prefilter.ts: only OTHER is forwarded here. */
enum { K_OTHER = 0, K_CALL, K_USE, K_SWITCH, K_KILL, K_SET, K_ALTER, K_REFRESH };

/* ---- the statement prefilter (statement-prefilter.ts classifyStatementBytes) ---------------- */

static int is_space(uint8_t c) { return c == 32 || c == 9 || c == 10 || c == 13 || c == 11 || c == 12; }

static int continues_word(uint8_t c) {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c == 95 || c == 36 || c >= 0x80;
}

static int word_at(const uint8_t *b, size_t i, size_t end, const char *upper) {
  size_t len = strlen(upper);
  if (i + len > end) return 0;
  for (size_t k = 0; k < len; k++)
    if ((b[i + k] & 0xdf) != (uint8_t)upper[k]) return 0;
  return i + len == end || !continues_word(b[i + len]);
}

static int classify(const uint8_t *b, size_t end) {
  size_t i = 0;
  while (i < end) {
    uint8_t c = b[i];
    if (is_space(c)) {
      i++;
    } else if (c == 35 || (c == 45 && i + 1 < end && b[i + 1] == 45 && (i + 2 >= end || is_space(b[i + 2])))) {
      while (i < end && b[i] != 10) i++;
    } else if (c == 47 && i + 1 < end && b[i + 1] == 42) {
      if (i + 2 < end && (b[i + 2] == 33 || b[i + 2] == 43)) return K_OTHER;
      size_t j = i + 2;
      while (j + 1 < end && !(b[j] == 42 && b[j + 1] == 47)) j++;
      if (j + 1 >= end) return K_OTHER;
      i = j + 2;
    } else {
      break;
    }
  }
  if (i >= end) return K_OTHER;
  switch (b[i] | 0x20) {
    case 'c': return word_at(b, i, end, "CALL") ? K_CALL : K_OTHER;
    case 'u': return word_at(b, i, end, "USE") ? K_USE : K_OTHER;
    case 's': return word_at(b, i, end, "SWITCH") ? K_SWITCH : word_at(b, i, end, "SET") ? K_SET : K_OTHER;
    case 'k': return word_at(b, i, end, "KILL") ? K_KILL : K_OTHER;
    case 'a': return word_at(b, i, end, "ALTER") ? K_ALTER : K_OTHER;
    case 'r': return word_at(b, i, end, "REFRESH") ? K_REFRESH : K_OTHER;
    default: return K_OTHER;
  }
}

/* ---- the response tracker (response-tracker.ts, the COM_QUERY states) ------------------------ */

enum { T_IDLE = 0, T_FIRST, T_COLUMNS, T_COLUMNS_EOF, T_ROWS, T_INFILE, T_ENDING };

typedef struct {
  uint8_t state;
  uint8_t deprecate_eof;
  uint8_t continuation;
  uint8_t stop;
  uint8_t error;
  uint32_t skip;
  uint32_t fill;
  uint32_t remaining;
  uint16_t status;
  uint8_t scratch[4 + PREFIX_SIZE];
} tracker_t;

static uint16_t ok_status(const uint8_t *b, uint32_t len) {
  uint32_t avail = len < PREFIX_SIZE ? len : PREFIX_SIZE;
  uint32_t p = 1;
  for (int k = 0; k < 2; k++) {
    if (p >= avail) return 0;
    uint8_t c = b[p];
    p += c < 0xfb ? 1 : c == 0xfc ? 3 : c == 0xfd ? 4 : 9;
  }
  if (p + 2 > avail) return 0;
  return (uint16_t)(b[p] | (b[p + 1] << 8));
}

static uint16_t eof_status(const uint8_t *b, uint32_t len) {
  return len < 5 ? 0 : (uint16_t)(b[3] | (b[4] << 8));
}

static uint32_t lenenc_at(const uint8_t *b, uint32_t len) {
  if (len == 0) return 0;
  if (b[0] < 0xfb) return b[0];
  if (b[0] == 0xfc && len >= 3) return (uint32_t)(b[1] | (b[2] << 8));
  if (b[0] == 0xfd && len >= 4) return (uint32_t)(b[1] | (b[2] << 8) | (b[3] << 16));
  return 0;
}

static void track_begin(tracker_t *t) {
  t->skip = 0;
  t->fill = 0;
  t->continuation = 0;
  t->stop = 0;
  t->error = 0;
  t->state = T_FIRST;
}

static void finish(tracker_t *t, int error) {
  t->error = (uint8_t)error;
  t->state = T_ENDING;
  t->stop = 1;
}

static void after_terminator(tracker_t *t, uint16_t status) {
  t->status = status;
  if (status & SERVER_MORE_RESULTS_EXISTS) t->state = T_FIRST;
  else finish(t, 0);
}

static void on_packet(tracker_t *t, const uint8_t *b, uint32_t len, int continued) {
  if (continued) return;
  int first = len > 0 ? b[0] : -1;
  switch (t->state) {
    case T_FIRST:
      if (first == OK_HEADER && len >= 7) {
        after_terminator(t, ok_status(b, len));
      } else if (first == ERR_HEADER) {
        finish(t, 1);
      } else if (first == LOCAL_INFILE_HEADER) {
        t->state = T_INFILE;
      } else {
        t->remaining = lenenc_at(b, len);
        t->state = t->remaining > 0 ? T_COLUMNS : T_ROWS;
      }
      return;
    case T_COLUMNS:
      if (--t->remaining == 0) t->state = t->deprecate_eof ? T_ROWS : T_COLUMNS_EOF;
      return;
    case T_COLUMNS_EOF:
      if (first == ERR_HEADER) {
        finish(t, 1);
        return;
      }
      t->status = eof_status(b, len);
      t->state = T_ROWS;
      return;
    case T_ROWS:
      if (first == EOF_HEADER && len < MAX_PACKET_PAYLOAD) after_terminator(t, t->deprecate_eof ? ok_status(b, len) : eof_status(b, len));
      else if (first == ERR_HEADER) finish(t, 1);
      return;
    case T_INFILE:
      if (first == ERR_HEADER) finish(t, 1);
      return;
    default:
      return;
  }
}

/* Gathers a header and prefix that straddle reads; returns the new index or -1 (ran out). */
static long fill_scratch(tracker_t *t, const uint8_t *c, size_t i, size_t n) {
  uint8_t *s = t->scratch;
  while (t->fill < 4) {
    if (i >= n) return -1;
    s[t->fill++] = c[i++];
  }
  uint32_t len = (uint32_t)(s[0] | (s[1] << 8) | (s[2] << 16));
  uint32_t need = 4 + (len < PREFIX_SIZE ? len : PREFIX_SIZE);
  while (t->fill < need) {
    if (i >= n) return -1;
    s[t->fill++] = c[i++];
  }
  t->fill = 0;
  int continued = t->continuation;
  t->continuation = len == MAX_PACKET_PAYLOAD;
  on_packet(t, s + 4, len, continued);
  t->skip = len - (need - 4);
  if (t->stop && t->skip > 0) {
    if (n - i < t->skip) {
      t->skip -= (uint32_t)(n - i);
      return -1;
    }
    i += t->skip;
    t->skip = 0;
  }
  return (long)i;
}

/* packet-walker.ts walk(): the index just past the response's last byte, or -1. */
static long walk(tracker_t *t, const uint8_t *c, size_t n) {
  size_t i = 0;
  while (i < n) {
    if (t->skip > 0) {
      size_t avail = n - i;
      if (avail < t->skip) {
        t->skip -= (uint32_t)avail;
        return -1;
      }
      i += t->skip;
      t->skip = 0;
    } else if (t->fill == 0 && n - i >= 4) {
      uint32_t len = (uint32_t)(c[i] | (c[i + 1] << 8) | (c[i + 2] << 16));
      uint32_t need = len < PREFIX_SIZE ? len : PREFIX_SIZE;
      if (n - i - 4 < need) {
        fill_scratch(t, c, i, n);
        return -1;
      }
      int continued = t->continuation;
      t->continuation = len == MAX_PACKET_PAYLOAD;
      on_packet(t, c + i + 4, len, continued);
      i += 4;
      t->skip = len;
      if (t->stop) {
        if (n - i < t->skip) {
          t->skip -= (uint32_t)(n - i);
          return -1;
        }
        i += t->skip;
        t->skip = 0;
        t->stop = 0;
        return (long)i;
      }
      continue;
    } else {
      long r = fill_scratch(t, c, i, n);
      if (r < 0) return -1;
      i = (size_t)r;
      if (t->stop && t->skip == 0) {
        t->stop = 0;
        return (long)i;
      }
      continue;
    }
    if (t->stop) {
      t->stop = 0;
      return (long)i;
    }
  }
  return -1;
}

/* ---- sessions held by the thread ----------------------------------------------------------- */

typedef struct {
  uint8_t *data;
  size_t len, cap;
} bytes_t;

typedef struct pair pair_t;
typedef struct {
  int fd;
  int side; /* 0 client, 1 upstream */
  uint32_t mask;
  bytes_t out; /* bytes for this side's socket that it could not take yet */
  pair_t *pair;
} end_t;

struct pair {
  end_t end[2];
  uint32_t slot;
  double key;
  int dead;
  uint32_t max_payload;
  uint32_t group;
  uint32_t forwarded; /* statements forwarded since attach */
  tracker_t t;
  bytes_t held; /* client bytes not forwarded yet */
  pair_t *next_dead;
};

typedef struct {
  double key;
  int reason;
  uint16_t status;
  uint32_t forwarded;
  bytes_t held, to_client, to_upstream;
} handback_t;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static int ep = -1;
static napi_threadsafe_function on_handback = NULL;
static napi_env started_env = NULL;
static pair_t **slots = NULL;
static uint32_t nslots = 0;
static uint32_t *free_slots = NULL;
static uint32_t nfree = 0;
static double next_generation = 1;
static pair_t *graveyard = NULL;
/*
 * Counters per group (one group per proxy server in the process): statements forwarded, bytes to
 * the FE, bytes to clients. Written by the thread under mu, read by counters() with relaxed loads.
 */
#define MAX_GROUPS 4096
static uint64_t counted[MAX_GROUPS][3];
static uint32_t ngroups = 0;

/* The thread is the only writer of the counters; relaxed stores keep counters() from tearing them. */
static void count(uint64_t *c, uint64_t n) { __atomic_store_n(c, *c + n, __ATOMIC_RELAXED); }

static int append(bytes_t *b, const uint8_t *data, size_t n) {
  if (n == 0) return 0;
  if (b->len + n > b->cap) {
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->len + n) cap *= 2;
    uint8_t *d = realloc(b->data, cap);
    if (d == NULL) return -1;
    b->data = d;
    b->cap = cap;
  }
  memcpy(b->data + b->len, data, n);
  b->len += n;
  return 0;
}

static void consume(bytes_t *b, size_t n) {
  if (n >= b->len) {
    b->len = 0;
    return;
  }
  memmove(b->data, b->data + n, b->len - n);
  b->len -= n;
}

static void release(bytes_t *b) {
  free(b->data);
  b->data = NULL;
  b->len = b->cap = 0;
}

static void give_back(pair_t *p, int reason);

static void lose_pair(pair_t *p) {
  p->dead = 1;
  epoll_ctl(ep, EPOLL_CTL_DEL, p->end[0].fd, NULL);
  epoll_ctl(ep, EPOLL_CTL_DEL, p->end[1].fd, NULL);
  slots[p->slot] = NULL;
  p->next_dead = graveyard;
  graveyard = p;
}

/* Moves what the pair still holds into a handback (the pair keeps nothing). */
static void take_bytes(pair_t *p, handback_t *h) {
  h->key = p->key;
  h->status = p->t.status;
  h->forwarded = p->forwarded;
  h->held = p->held;
  h->to_client = p->end[0].out;
  h->to_upstream = p->end[1].out;
  memset(&p->held, 0, sizeof p->held);
  memset(&p->end[0].out, 0, sizeof p->end[0].out);
  memset(&p->end[1].out, 0, sizeof p->end[1].out);
}

/* Sends as much of data as the socket takes now: the count sent, or -1 when the socket failed. */
static ssize_t send_some(int fd, const uint8_t *data, size_t n) {
  size_t sent = 0;
  while (sent < n) {
    ssize_t w = send(fd, data + sent, n - sent, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (w > 0) sent += (size_t)w;
    else if (w < 0 && errno == EINTR) continue;
    else if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
    else return -1;
  }
  return (ssize_t)sent;
}

/* Writes to one side, queueing what its socket does not take; 0, or -1 when the pair was given back. */
static int send_to(pair_t *p, int side, const uint8_t *data, size_t n) {
  end_t *e = &p->end[side];
  if (side == 1) count(&counted[p->group][1], n);
  ssize_t sent = e->out.len == 0 ? send_some(e->fd, data, n) : 0;
  if (sent < 0 || append(&e->out, data + sent, n - (size_t)sent) < 0) {
    give_back(p, side == 0 ? R_CLIENT_CLOSED : R_UPSTREAM_CLOSED);
    return -1;
  }
  return 0;
}

/* The side's socket can take more: what was queued for it goes first. */
static void flush(pair_t *p, int side) {
  end_t *e = &p->end[side];
  ssize_t sent = send_some(e->fd, e->out.data, e->out.len);
  if (sent < 0) give_back(p, side == 0 ? R_CLIENT_CLOSED : R_UPSTREAM_CLOSED);
  else consume(&e->out, (size_t)sent);
}

/* The epoll interest of both sides: a side is read only while the other takes what it is sent. */
static void update_interest(pair_t *p) {
  uint32_t want[2];
  want[0] = (p->end[1].out.len == 0 && (p->t.state == T_IDLE || p->held.len < CLIENT_HOLD_MAX) ? EPOLLIN : 0) | (p->end[0].out.len > 0 ? EPOLLOUT : 0);
  want[1] = (p->end[0].out.len == 0 ? EPOLLIN : 0) | (p->end[1].out.len > 0 ? EPOLLOUT : 0);
  for (int s = 0; s < 2; s++) {
    if (want[s] == p->end[s].mask) continue;
    struct epoll_event ev = { .events = want[s], .data.ptr = &p->end[s] };
    epoll_ctl(ep, EPOLL_CTL_MOD, p->end[s].fd, &ev);
    p->end[s].mask = want[s];
  }
}

/* A whole client packet (header included) this thread forwards: a plain COM_QUERY. */
static int forwardable(const pair_t *p, const uint8_t *pk, uint32_t len) {
  return len >= 1 && pk[4] == COM_QUERY && len < MAX_PACKET_PAYLOAD && len <= p->max_payload && classify(pk + 5, len - 1) == K_OTHER;
}

static int forward(pair_t *p, const uint8_t *pk, size_t n) {
  count(&counted[p->group][0], 1);
  p->forwarded++;
  track_begin(&p->t);
  return send_to(p, 1, pk, n);
}

/* No response in flight: forward the client's next packets, or give the session back. */
static void serve_held(pair_t *p) {
  while (!p->dead && p->t.state == T_IDLE && p->held.len >= 4) {
    const uint8_t *pk = p->held.data;
    uint32_t len = (uint32_t)(pk[0] | (pk[1] << 8) | (pk[2] << 16));
    if ((size_t)len + 4 > p->held.len) {
      if ((size_t)len + 4 > READ_SIZE) give_back(p, R_COMMAND);
      return;
    }
    if (!forwardable(p, pk, len)) {
      give_back(p, R_COMMAND);
      return;
    }
    if (forward(p, pk, (size_t)len + 4) < 0) return;
    consume(&p->held, (size_t)len + 4);
  }
}

static void from_client(pair_t *p, const uint8_t *data, size_t n) {
  if (p->t.state == T_IDLE && p->held.len == 0 && n >= 4) {
    uint32_t len = (uint32_t)(data[0] | (data[1] << 8) | (data[2] << 16));
    if ((size_t)len + 4 == n && forwardable(p, data, len)) {
      forward(p, data, n);
      return;
    }
  }
  if (append(&p->held, data, n) < 0) {
    give_back(p, R_CLIENT_CLOSED);
    return;
  }
  serve_held(p);
}

static void from_upstream(pair_t *p, const uint8_t *data, size_t n) {
  tracker_t *t = &p->t;
  long end = -1;
  count(&counted[p->group][2], n);
  if (t->state != T_IDLE) end = walk(t, data, n);
  if (send_to(p, 0, data, n) < 0) return;
  if (end >= 0) {
    t->state = T_IDLE;
    serve_held(p);
  } else if (t->state == T_INFILE && t->skip == 0 && t->fill == 0) {
    give_back(p, R_INFILE);
  }
}

/* ---- handing sessions back to Node ---------------------------------------------------------- */

static napi_value buffer_of(napi_env env, bytes_t *b) {
  napi_value out;
  void *unused;
  napi_create_buffer_copy(env, b->len, b->len ? (const void *)b->data : (const void *)"", &unused, &out);
  return out;
}

static napi_value handback_array(napi_env env, handback_t *h) {
  napi_value arr, v;
  napi_create_array_with_length(env, 7, &arr);
  napi_create_double(env, h->key, &v);
  napi_set_element(env, arr, 0, v);
  napi_create_int32(env, h->reason, &v);
  napi_set_element(env, arr, 1, v);
  napi_create_int32(env, h->status, &v);
  napi_set_element(env, arr, 2, v);
  napi_set_element(env, arr, 3, buffer_of(env, &h->held));
  napi_set_element(env, arr, 4, buffer_of(env, &h->to_client));
  napi_set_element(env, arr, 5, buffer_of(env, &h->to_upstream));
  napi_create_uint32(env, h->forwarded, &v);
  napi_set_element(env, arr, 6, v);
  return arr;
}

static void free_handback(handback_t *h) {
  release(&h->held);
  release(&h->to_client);
  release(&h->to_upstream);
  free(h);
}

static void call_handback(napi_env env, napi_value js_cb, void *context, void *data) {
  (void)context;
  handback_t *h = data;
  if (env != NULL) {
    napi_value undefined, arg = handback_array(env, h);
    napi_get_undefined(env, &undefined);
    napi_call_function(env, undefined, js_cb, 1, &arg, NULL);
  }
  free_handback(h);
}

static void give_back(pair_t *p, int reason) {
  if (p->dead) return;
  handback_t *h = calloc(1, sizeof *h);
  lose_pair(p);
  if (h == NULL) return; /* out of memory: Node never hears of the pair again and its sockets stay paused */
  take_bytes(p, h);
  h->reason = reason;
  napi_call_threadsafe_function(on_handback, h, napi_tsfn_nonblocking);
}

static void free_graveyard(void) {
  while (graveyard != NULL) {
    pair_t *p = graveyard;
    graveyard = p->next_dead;
    release(&p->held);
    release(&p->end[0].out);
    release(&p->end[1].out);
    free_slots[nfree++] = p->slot;
    free(p);
  }
}

/* ---- the thread ----------------------------------------------------------------------------- */

static void on_event(end_t *e, uint32_t events) {
  static uint8_t buf[READ_SIZE];
  pair_t *p = e->pair;
  if (events & EPOLLOUT) {
    flush(p, e->side);
    if (p->dead) return;
  }
  if (!(events & (EPOLLIN | EPOLLHUP | EPOLLERR))) return;
  ssize_t r = recv(e->fd, buf, sizeof buf, MSG_DONTWAIT);
  if (r > 0) {
    if (e->side == 0) from_client(p, buf, (size_t)r);
    else from_upstream(p, buf, (size_t)r);
  } else if (r == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
    give_back(p, e->side == 0 ? R_CLIENT_CLOSED : R_UPSTREAM_CLOSED);
  }
}

static void *loop(void *arg) {
  (void)arg;
  struct epoll_event evs[64];
  for (;;) {
    int n = epoll_wait(ep, evs, 64, -1);
    if (n < 0) continue;
    pthread_mutex_lock(&mu);
    for (int i = 0; i < n; i++) {
      end_t *e = evs[i].data.ptr;
      if (e->pair->dead) continue;
      on_event(e, evs[i].events);
      if (!e->pair->dead) update_interest(e->pair);
    }
    free_graveyard();
    pthread_mutex_unlock(&mu);
  }
  return NULL;
}

/* ---- the functions Node calls --------------------------------------------------------------- */

static napi_value fail(napi_env env, const char *message) {
  napi_throw_error(env, NULL, message);
  return NULL;
}

/* start(onHandback): the thread and the callback, once per process. */
static napi_value start(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  /* The thread delivers to one environment: a worker thread of the same process cannot share it. */
  if (on_handback != NULL) return env == started_env ? NULL : fail(env, "the native relay serves the main thread only");
  if (argc < 1) return fail(env, "start(onHandback)");
  napi_value name;
  napi_create_string_utf8(env, "native-relay-handback", NAPI_AUTO_LENGTH, &name);
  if (napi_create_threadsafe_function(env, argv[0], NULL, name, 0, 1, NULL, NULL, NULL, call_handback, &on_handback) != napi_ok)
    return fail(env, "cannot create the handback callback");
  /* The sessions' sockets and the listener keep the process alive, not this callback. */
  napi_unref_threadsafe_function(env, on_handback);
  started_env = env;
  ep = epoll_create1(EPOLL_CLOEXEC);
  pthread_t t;
  if (ep < 0 || pthread_create(&t, NULL, loop, NULL) != 0) return fail(env, "cannot start the relay thread");
  pthread_detach(t);
  return NULL;
}

static int grow_slots(void) {
  uint32_t n = nslots ? nslots * 2 : 256;
  pair_t **s = realloc(slots, n * sizeof *s);
  if (s == NULL) return -1;
  slots = s;
  uint32_t *f = realloc(free_slots, n * sizeof *f);
  if (f == NULL) return -1;
  free_slots = f;
  for (uint32_t i = n; i > nslots; i--) {
    slots[i - 1] = NULL;
    free_slots[nfree++] = i - 1;
  }
  nslots = n;
  return 0;
}

/* newGroup() -> a counter group for one proxy server. */
static napi_value new_group(napi_env env, napi_callback_info info) {
  (void)info;
  napi_value out;
  pthread_mutex_lock(&mu);
  int32_t g = ngroups < MAX_GROUPS ? (int32_t)ngroups++ : -1;
  pthread_mutex_unlock(&mu);
  if (g < 0) return fail(env, "too many native relay counter groups in one process");
  napi_create_int32(env, g, &out);
  return out;
}

/* attach(group, clientFd, upstreamFd, deprecateEof, maxPayload, statusFlags) -> key */
static napi_value attach(napi_env env, napi_callback_info info) {
  size_t argc = 6;
  napi_value argv[6];
  int32_t cfd, ufd, max_payload, status;
  uint32_t group;
  bool deprecate;
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  if (argc < 6 || napi_get_value_uint32(env, argv[0], &group) != napi_ok || group >= ngroups || napi_get_value_int32(env, argv[1], &cfd) != napi_ok ||
      napi_get_value_int32(env, argv[2], &ufd) != napi_ok || napi_get_value_bool(env, argv[3], &deprecate) != napi_ok ||
      napi_get_value_int32(env, argv[4], &max_payload) != napi_ok || napi_get_value_int32(env, argv[5], &status) != napi_ok)
    return fail(env, "attach(group, clientFd, upstreamFd, deprecateEof, maxPayload, statusFlags)");
  if (on_handback == NULL || env != started_env) return fail(env, "the native relay is not started");
  pthread_mutex_lock(&mu);
  if (nfree == 0 && grow_slots() < 0) {
    pthread_mutex_unlock(&mu);
    return fail(env, "out of memory");
  }
  pair_t *p = calloc(1, sizeof *p);
  if (p == NULL) {
    pthread_mutex_unlock(&mu);
    return fail(env, "out of memory");
  }
  p->slot = free_slots[--nfree];
  p->key = next_generation * 4294967296.0 + p->slot;
  next_generation += 1;
  if (next_generation > 1048575) next_generation = 1;
  p->max_payload = (uint32_t)max_payload;
  p->group = group;
  p->t.deprecate_eof = deprecate ? 1 : 0;
  p->t.status = (uint16_t)status;
  p->t.state = T_IDLE;
  for (int s = 0; s < 2; s++) {
    p->end[s].fd = s == 0 ? cfd : ufd;
    p->end[s].side = s;
    p->end[s].mask = EPOLLIN;
    p->end[s].pair = p;
  }
  slots[p->slot] = p;
  struct epoll_event ev = { .events = EPOLLIN, .data.ptr = &p->end[0] };
  int ok = epoll_ctl(ep, EPOLL_CTL_ADD, cfd, &ev) == 0;
  ev.data.ptr = &p->end[1];
  ok = ok && epoll_ctl(ep, EPOLL_CTL_ADD, ufd, &ev) == 0;
  if (!ok) {
    int err = errno;
    lose_pair(p);
    pthread_mutex_unlock(&mu);
    napi_throw_error(env, NULL, strerror(err));
    return NULL;
  }
  pthread_mutex_unlock(&mu);
  napi_value out;
  napi_create_double(env, p->key, &out);
  return out;
}

/* detach(key) -> [key, 0, status, held, toClient, toUpstream, forwarded], or null once the thread gave it back. */
static napi_value detach(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1], out;
  double key;
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  if (argc < 1 || napi_get_value_double(env, argv[0], &key) != napi_ok) return fail(env, "detach(key)");
  handback_t h;
  memset(&h, 0, sizeof h);
  int found = 0;
  pthread_mutex_lock(&mu);
  uint32_t slot = (uint32_t)((uint64_t)key & 0xffffffffu);
  if (slot < nslots && slots[slot] != NULL && slots[slot]->key == key) {
    pair_t *p = slots[slot];
    lose_pair(p);
    take_bytes(p, &h);
    found = 1;
  }
  pthread_mutex_unlock(&mu);
  if (!found) {
    napi_get_null(env, &out);
    return out;
  }
  out = handback_array(env, &h);
  release(&h.held);
  release(&h.to_client);
  release(&h.to_upstream);
  return out;
}

/* counters(group) -> [statements forwarded, bytes to the FE, bytes to clients] by the thread. */
static napi_value counters(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1], arr, v;
  uint32_t group;
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  if (argc < 1 || napi_get_value_uint32(env, argv[0], &group) != napi_ok || group >= MAX_GROUPS) return fail(env, "counters(group)");
  napi_create_array_with_length(env, 3, &arr);
  for (uint32_t i = 0; i < 3; i++) {
    napi_create_double(env, (double)__atomic_load_n(&counted[group][i], __ATOMIC_RELAXED), &v);
    napi_set_element(env, arr, i, v);
  }
  return arr;
}

/* classify(buf) -> the StatementKind number of a COM_QUERY text (tests compare it with the TypeScript rule). */
static napi_value classify_js(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1], out;
  void *data;
  size_t len;
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  if (argc < 1 || napi_get_buffer_info(env, argv[0], &data, &len) != napi_ok) return fail(env, "classify(buffer)");
  napi_create_int32(env, classify(data, len), &out);
  return out;
}

/*
 * scanResponse(deprecateEof, chunks) -> [chunk index, end offset, status flags, error, infile]:
 * the response tracker over a COM_QUERY response delivered in these chunks (tests compare it with
 * ResponseTracker); chunk index -1 when it did not end.
 */
static napi_value scan_response(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2], out, v;
  bool deprecate;
  uint32_t count;
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  if (argc < 2 || napi_get_value_bool(env, argv[0], &deprecate) != napi_ok || napi_get_array_length(env, argv[1], &count) != napi_ok)
    return fail(env, "scanResponse(deprecateEof, chunks)");
  tracker_t t;
  memset(&t, 0, sizeof t);
  t.deprecate_eof = deprecate ? 1 : 0;
  track_begin(&t);
  int32_t res[5] = { -1, -1, 0, 0, 0 };
  for (uint32_t i = 0; i < count; i++) {
    napi_value chunk;
    void *data;
    size_t len;
    napi_get_element(env, argv[1], i, &chunk);
    if (napi_get_buffer_info(env, chunk, &data, &len) != napi_ok) return fail(env, "scanResponse: chunks must be Buffers");
    long end = walk(&t, data, len);
    if (end >= 0) {
      res[0] = (int32_t)i;
      res[1] = (int32_t)end;
      break;
    }
  }
  res[2] = t.status;
  res[3] = t.error;
  res[4] = t.state == T_INFILE;
  napi_create_array_with_length(env, 5, &out);
  for (uint32_t i = 0; i < 5; i++) {
    napi_create_int32(env, res[i], &v);
    napi_set_element(env, out, i, v);
  }
  return out;
}

NAPI_MODULE_INIT() {
  static const struct {
    const char *name;
    napi_callback fn;
  } fns[] = { { "start", start }, { "newGroup", new_group }, { "attach", attach }, { "detach", detach }, { "counters", counters }, { "classify", classify_js }, { "scanResponse", scan_response } };
  for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++) {
    napi_value f;
    napi_create_function(env, fns[i].name, NAPI_AUTO_LENGTH, fns[i].fn, NULL, &f);
    napi_set_named_property(env, exports, fns[i].name, f);
  }
  return exports;
}
