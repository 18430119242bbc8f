/*
 * A yardstick for bench/sysbench.sh: the bytes of each connection pair copied both ways by one
 * epoll thread per process, outside Node's event loop, nothing parsed. It shows what a relay
 * costs once no JavaScript runs per read or write (the Node floors call into V8 twice per query).
 *
 * relay(clientFd, upstreamFd, onEnd): the pair is watched edge-triggered; Node keeps both
 * sockets open and paused, and onEnd(id) runs on Node's thread when either side ends, so that
 * Node closes the sockets it owns (this thread never closes a descriptor libuv may reuse).
 */
#include <node_api.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

typedef struct pair pair_t;
typedef struct {
  int fd;
  int peer;
  pair_t *pair;
} end_t;
struct pair {
  end_t a, b;
  int32_t id;
  int ended;
};

static int ep = -1;
static napi_threadsafe_function on_end = NULL;

static void call_end(napi_env env, napi_value js_cb, void *context, void *data) {
  (void)context;
  pair_t *p = data;
  if (env != NULL) {
    napi_value undefined, id;
    napi_get_undefined(env, &undefined);
    napi_create_int32(env, p->id, &id);
    napi_call_function(env, undefined, js_cb, 1, &id, NULL);
  }
  /* p is not freed: events of the same epoll_wait batch may still point at it (a few bytes per
     connection of a benchmark). */
}

/* Writes all of buf to fd; a full socket buffer is retried (bounded), which a yardstick may do. */
static int write_all(int fd, const char *buf, ssize_t n) {
  ssize_t off = 0;
  int spins = 0;
  while (off < n) {
    ssize_t w = write(fd, buf + off, (size_t)(n - off));
    if (w > 0) {
      off += w;
      spins = 0;
    } else if (w < 0 && (errno == EAGAIN || errno == EINTR) && spins++ < 1000000) {
      continue;
    } else {
      return -1;
    }
  }
  return 0;
}

static void end_pair(pair_t *p) {
  if (p->ended) return;
  p->ended = 1;
  epoll_ctl(ep, EPOLL_CTL_DEL, p->a.fd, NULL);
  epoll_ctl(ep, EPOLL_CTL_DEL, p->b.fd, NULL);
  napi_call_threadsafe_function(on_end, p, napi_tsfn_blocking);
}

static void *loop(void *arg) {
  (void)arg;
  static char buf[65536];
  struct epoll_event evs[64];
  for (;;) {
    int n = epoll_wait(ep, evs, 64, -1);
    for (int i = 0; i < n; i++) {
      end_t *e = evs[i].data.ptr;
      if (e->pair->ended) continue;
      for (;;) {
        ssize_t r = read(e->fd, buf, sizeof buf);
        if (r > 0) {
          if (write_all(e->peer, buf, r) < 0) {
            end_pair(e->pair);
            break;
          }
          if (r < (ssize_t)sizeof buf) break;
        } else if (r < 0 && errno == EAGAIN) {
          break;
        } else if (r < 0 && errno == EINTR) {
          continue;
        } else {
          end_pair(e->pair);
          break;
        }
      }
    }
  }
  return NULL;
}

static napi_value relay(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3];
  int32_t a, b, id;
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  if (argc < 3 || napi_get_value_int32(env, argv[0], &a) != napi_ok || napi_get_value_int32(env, argv[1], &b) != napi_ok) {
    napi_throw_type_error(env, NULL, "relay(clientFd, upstreamFd, onEnd)");
    return NULL;
  }
  if (on_end == NULL) {
    napi_value name;
    napi_create_string_utf8(env, "relay-end", NAPI_AUTO_LENGTH, &name);
    if (napi_create_threadsafe_function(env, argv[2], NULL, name, 0, 1, NULL, NULL, NULL, call_end, &on_end) != napi_ok) {
      napi_throw_error(env, NULL, "cannot create the end callback");
      return NULL;
    }
    napi_unref_threadsafe_function(env, on_end);
    ep = epoll_create1(EPOLL_CLOEXEC);
    pthread_t t;
    if (ep < 0 || pthread_create(&t, NULL, loop, NULL) != 0) {
      napi_throw_error(env, NULL, "cannot start the relay thread");
      return NULL;
    }
    pthread_detach(t);
  }
  static int32_t next_id = 0;
  id = ++next_id;
  pair_t *p = calloc(1, sizeof *p);
  p->id = id;
  p->a = (end_t){ a, b, p };
  p->b = (end_t){ b, a, p };
  struct epoll_event ev = { .events = EPOLLIN | EPOLLRDHUP | EPOLLET };
  ev.data.ptr = &p->a;
  epoll_ctl(ep, EPOLL_CTL_ADD, a, &ev);
  ev.data.ptr = &p->b;
  epoll_ctl(ep, EPOLL_CTL_ADD, b, &ev);
  napi_value out;
  napi_create_int32(env, id, &out);
  return out;
}

NAPI_MODULE_INIT() {
  napi_value fn;
  napi_create_function(env, "relay", NAPI_AUTO_LENGTH, relay, NULL, &fn);
  napi_set_named_property(env, exports, "relay", fn);
  return exports;
}
