// Batched UDP for the DNS server (Linux): one recvmmsg reads up to BATCH datagrams, one call into
// JavaScript answers them all, one sendmmsg sends the replies. Node's dgram costs a system call, a
// JavaScript callback and a few objects per datagram in each direction; at tens of thousands of
// queries a second that is most of a DNS worker's time (see docs/dns-server.md, "Batched UDP").
//
// The socket is polled on the calling thread's libuv loop (main thread or worker), so JavaScript
// runs on that thread as usual. Datagrams and replies live in buffers JavaScript allocates and
// lends; per datagram, a record of META_WORDS 32-bit words (layout in src/dns/server/udp-batch.ts):
// the datagram's length (-1: it did not fit its slot), the reply's length (set by JavaScript; 0: no
// reply), the length of the source address's text, then that text.
#define _GNU_SOURCE  // recvmmsg, sendmmsg
#define NAPI_VERSION 8
#include <node_api.h>
#include <uv.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define BATCH 64
#define SLOT 4096
#define META_WORDS 16
#define META_TEXT 3
// Batches read per readiness before the loop gets a turn (TCP, timers and the change feed share it).
#define ROUNDS 8

typedef struct {
  uv_poll_t poll;
  int fd;
  int closing;
  // The JavaScript handle and a started poll each own the state; the last to let go frees it.
  int owners;
  napi_env env;
  napi_ref callback;
  napi_ref buffers[3];
  napi_async_context async;
  napi_async_cleanup_hook_handle cleanup;
  uint8_t *in;
  uint8_t *out;
  int32_t *meta;
  struct sockaddr_storage from[BATCH];
  struct iovec in_iov[BATCH];
  struct mmsghdr in_msgs[BATCH];
  struct iovec out_iov[BATCH];
  struct mmsghdr out_msgs[BATCH];
} udp_batch;

#define CHECK(call)                                                        \
  do {                                                                     \
    if ((call) != napi_ok) {                                               \
      napi_throw_error(env, NULL, "udp_batch: " #call " failed");          \
      return NULL;                                                         \
    }                                                                      \
  } while (0)

static napi_value throw_errno(napi_env env, const char *syscall, int err, const char *host, int port) {
  char message[160];
  snprintf(message, sizeof message, "%s %s %s:%d", syscall, strerror(err), host, port);
  napi_value code_value, message_value, error;
  const char *code = err == EADDRINUSE ? "EADDRINUSE" : err == EACCES ? "EACCES" : err == EADDRNOTAVAIL ? "EADDRNOTAVAIL" : "EUDPBATCH";
  napi_create_string_utf8(env, code, NAPI_AUTO_LENGTH, &code_value);
  napi_create_string_utf8(env, message, NAPI_AUTO_LENGTH, &message_value);
  napi_create_error(env, code_value, message_value, &error);
  napi_throw(env, error);
  return NULL;
}

static void release(udp_batch *s) {
  if (--s->owners == 0) free(s);
}

static void on_handle_collected(napi_env env, void *data, void *hint) {
  (void)env;
  (void)hint;
  udp_batch *s = data;
  // Never started, never closed: nothing else will close its socket.
  if (s->callback == NULL && s->fd >= 0) close(s->fd);
  release(s);
}

// open(host, port, reusePort) -> [handle, boundPort]
static napi_value open_socket(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  char host[64];
  size_t host_length;
  int32_t port;
  bool reuse_port;
  CHECK(napi_get_value_string_utf8(env, argv[0], host, sizeof host, &host_length));
  CHECK(napi_get_value_int32(env, argv[1], &port));
  CHECK(napi_get_value_bool(env, argv[2], &reuse_port));

  struct sockaddr_storage address;
  socklen_t address_length;
  memset(&address, 0, sizeof address);
  struct sockaddr_in *v4 = (struct sockaddr_in *)&address;
  struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&address;
  if (inet_pton(AF_INET, host, &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    v4->sin_port = htons((uint16_t)port);
    address_length = sizeof *v4;
  } else if (inet_pton(AF_INET6, host, &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons((uint16_t)port);
    address_length = sizeof *v6;
  } else {
    napi_throw_type_error(env, NULL, "udp_batch: the listen host must be an IP address");
    return NULL;
  }

  int fd = socket(address.ss_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return throw_errno(env, "socket", errno, host, port);
  int on = 1;
  if (reuse_port && setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &on, sizeof on) != 0) {
    int err = errno;
    close(fd);
    return throw_errno(env, "setsockopt", err, host, port);
  }
  if (bind(fd, (struct sockaddr *)&address, address_length) != 0) {
    int err = errno;
    close(fd);
    return throw_errno(env, "bind", err, host, port);
  }
  struct sockaddr_storage bound;
  socklen_t bound_length = sizeof bound;
  getsockname(fd, (struct sockaddr *)&bound, &bound_length);
  int bound_port = ntohs(bound.ss_family == AF_INET ? ((struct sockaddr_in *)&bound)->sin_port : ((struct sockaddr_in6 *)&bound)->sin6_port);

  udp_batch *socket_state = calloc(1, sizeof *socket_state);
  if (socket_state == NULL) {
    close(fd);
    napi_throw_error(env, NULL, "udp_batch: out of memory");
    return NULL;
  }
  socket_state->fd = fd;
  socket_state->env = env;
  socket_state->owners = 1;
  napi_value handle, port_value, result;
  CHECK(napi_create_external(env, socket_state, on_handle_collected, NULL, &handle));
  CHECK(napi_create_int32(env, bound_port, &port_value));
  CHECK(napi_create_array_with_length(env, 2, &result));
  CHECK(napi_set_element(env, result, 0, handle));
  CHECK(napi_set_element(env, result, 1, port_value));
  return result;
}

static void on_closed(uv_handle_t *handle) {
  udp_batch *s = handle->data;
  napi_env env = s->env;
  napi_delete_reference(env, s->callback);
  for (int i = 0; i < 3; i++) napi_delete_reference(env, s->buffers[i]);
  napi_async_destroy(env, s->async);
  napi_remove_async_cleanup_hook(s->cleanup);
  release(s);
}

// uv_close stops the poll at once; the socket is closed right after, so its port is free when
// close() returns (a service restarted in the same process binds it again). The poll handle and
// what it holds go in the loop's next close phase.
static void begin_close(udp_batch *s) {
  if (s->closing) return;
  s->closing = 1;
  uv_close((uv_handle_t *)&s->poll, on_closed);
  close(s->fd);
  s->fd = -1;
}

// The thread's environment is going away (a worker ending) without close() having been called.
static void on_cleanup(napi_async_cleanup_hook_handle hook, void *arg) {
  (void)hook;
  begin_close(arg);
}

// Replies JavaScript left in the out slots of the first `count` datagrams, in one sendmmsg. A reply
// the kernel will not take now (a full send buffer) is dropped, as a datagram on the wire might be.
static void send_replies(udp_batch *s, int count) {
  int pending = 0;
  for (int i = 0; i < count; i++) {
    int32_t length = s->meta[i * META_WORDS + 1];
    if (length <= 0 || length > SLOT) continue;
    s->out_iov[pending].iov_base = s->out + (size_t)i * SLOT;
    s->out_iov[pending].iov_len = (size_t)length;
    struct msghdr *header = &s->out_msgs[pending].msg_hdr;
    header->msg_name = &s->from[i];
    header->msg_namelen = s->in_msgs[i].msg_hdr.msg_namelen;
    header->msg_iov = &s->out_iov[pending];
    header->msg_iovlen = 1;
    header->msg_control = NULL;
    header->msg_controllen = 0;
    header->msg_flags = 0;
    pending++;
  }
  int sent = 0;
  while (sent < pending) {
    int n = sendmmsg(s->fd, s->out_msgs + sent, (unsigned)(pending - sent), MSG_DONTWAIT);
    if (n < 0) {
      if (errno == EINTR) continue;
      // EAGAIN: drop the rest. Anything else belongs to the first message (an unreachable
      // address, say): skip it and send the others.
      if (errno == EAGAIN || errno == EWOULDBLOCK) break;
      sent++;
      continue;
    }
    sent += n;
  }
}

// Describes datagram i to JavaScript: its length and its source address as text.
static void describe(udp_batch *s, int i) {
  int32_t *meta = s->meta + i * META_WORDS;
  struct mmsghdr *message = &s->in_msgs[i];
  meta[0] = (message->msg_hdr.msg_flags & MSG_TRUNC) ? -1 : (int32_t)message->msg_len;
  meta[1] = 0;
  char *text = (char *)(meta + META_TEXT);
  const size_t text_room = (META_WORDS - META_TEXT) * 4;
  struct sockaddr_storage *from = &s->from[i];
  if (from->ss_family == AF_INET)
    inet_ntop(AF_INET, &((struct sockaddr_in *)from)->sin_addr, text, text_room);
  else
    inet_ntop(AF_INET6, &((struct sockaddr_in6 *)from)->sin6_addr, text, text_room);
  meta[2] = (int32_t)strnlen(text, text_room);
}

static void on_readable(uv_poll_t *handle, int status, int events) {
  (void)events;
  udp_batch *s = handle->data;
  if (status < 0 || s->closing) return;
  napi_env env = s->env;
  for (int round = 0; round < ROUNDS && !s->closing; round++) {
    for (int i = 0; i < BATCH; i++) {
      s->in_iov[i].iov_base = s->in + (size_t)i * SLOT;
      s->in_iov[i].iov_len = SLOT;
      struct msghdr *header = &s->in_msgs[i].msg_hdr;
      header->msg_name = &s->from[i];
      header->msg_namelen = sizeof s->from[i];
      header->msg_iov = &s->in_iov[i];
      header->msg_iovlen = 1;
      header->msg_control = NULL;
      header->msg_controllen = 0;
      header->msg_flags = 0;
    }
    int count = recvmmsg(s->fd, s->in_msgs, BATCH, MSG_DONTWAIT, NULL);
    if (count < 0 && errno == EINTR) continue;
    if (count <= 0) return;
    for (int i = 0; i < count; i++) describe(s, i);

    napi_handle_scope scope;
    if (napi_open_handle_scope(env, &scope) != napi_ok) return;
    napi_value resource, callback, argument, result;
    napi_get_reference_value(env, s->callback, &callback);
    napi_create_object(env, &resource);
    napi_create_int32(env, count, &argument);
    // make_callback runs queued microtasks and ticks afterwards, as Node does after any I/O callback.
    napi_status called = napi_make_callback(env, s->async, resource, callback, 1, &argument, &result);
    if (called == napi_pending_exception) {
      // The JavaScript side catches per query; anything escaping it is reported, not swallowed.
      napi_value error;
      napi_get_and_clear_last_exception(env, &error);
      napi_fatal_exception(env, error);
    }
    napi_close_handle_scope(env, scope);
    if (s->closing) return;
    send_replies(s, count);
    if (count < BATCH) return;
  }
}

static udp_batch *unwrap(napi_env env, napi_value handle) {
  void *data = NULL;
  if (napi_get_value_external(env, handle, &data) != napi_ok || data == NULL) {
    napi_throw_type_error(env, NULL, "udp_batch: not a socket handle");
    return NULL;
  }
  return data;
}

static int borrow(napi_env env, napi_value value, size_t needed, void **data) {
  size_t length = 0;
  if (napi_get_buffer_info(env, value, data, &length) != napi_ok || length < needed) {
    napi_throw_range_error(env, NULL, "udp_batch: a buffer is smaller than its batch");
    return 0;
  }
  return 1;
}

// start(handle, input, output, meta, onBatch): polls the socket; onBatch(count) answers datagrams.
static napi_value start(napi_env env, napi_callback_info info) {
  size_t argc = 5;
  napi_value argv[5];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  udp_batch *s = unwrap(env, argv[0]);
  if (s == NULL) return NULL;
  if (s->callback != NULL || s->closing) {
    napi_throw_error(env, NULL, "udp_batch: the socket is already started or closed");
    return NULL;
  }
  void *in, *out, *meta;
  napi_valuetype callback_type;
  if (!borrow(env, argv[1], (size_t)BATCH * SLOT, &in) || !borrow(env, argv[2], (size_t)BATCH * SLOT, &out) ||
      !borrow(env, argv[3], (size_t)BATCH * META_WORDS * 4, &meta))
    return NULL;
  CHECK(napi_typeof(env, argv[4], &callback_type));
  if (callback_type != napi_function) {
    napi_throw_type_error(env, NULL, "udp_batch: onBatch must be a function");
    return NULL;
  }
  uv_loop_t *loop;
  CHECK(napi_get_uv_event_loop(env, &loop));
  if (uv_poll_init_socket(loop, &s->poll, s->fd) != 0) {
    napi_throw_error(env, NULL, "udp_batch: uv_poll_init_socket failed");
    return NULL;
  }
  // From here on nothing fails but the process's memory: the poll handle owns what follows.
  s->in = in;
  s->out = out;
  s->meta = meta;
  napi_value name;
  napi_create_reference(env, argv[1], 1, &s->buffers[0]);
  napi_create_reference(env, argv[2], 1, &s->buffers[1]);
  napi_create_reference(env, argv[3], 1, &s->buffers[2]);
  napi_create_reference(env, argv[4], 1, &s->callback);
  napi_create_string_utf8(env, "edgeplane:udp-batch", NAPI_AUTO_LENGTH, &name);
  napi_async_init(env, NULL, name, &s->async);
  napi_add_async_cleanup_hook(env, on_cleanup, s, &s->cleanup);
  s->poll.data = s;
  s->owners++;
  uv_poll_start(&s->poll, UV_READABLE, on_readable);
  return NULL;
}

// close(handle): stops polling and closes the socket; a handle never started is closed at once.
static napi_value close_socket(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  udp_batch *s = unwrap(env, argv[0]);
  if (s == NULL) return NULL;
  if (s->callback == NULL) {
    if (s->fd >= 0) close(s->fd);
    s->fd = -1;
    s->closing = 1;
    return NULL;
  }
  begin_close(s);
  return NULL;
}

static napi_value constant(napi_env env, int value) {
  napi_value result;
  napi_create_int32(env, value, &result);
  return result;
}

NAPI_MODULE_INIT() {
  napi_property_descriptor properties[] = {
      {"open", NULL, open_socket, NULL, NULL, NULL, napi_enumerable, NULL},
      {"start", NULL, start, NULL, NULL, NULL, napi_enumerable, NULL},
      {"close", NULL, close_socket, NULL, NULL, NULL, napi_enumerable, NULL},
      {"batch", NULL, NULL, NULL, NULL, constant(env, BATCH), napi_enumerable, NULL},
      {"slot", NULL, NULL, NULL, NULL, constant(env, SLOT), napi_enumerable, NULL},
      {"metaWords", NULL, NULL, NULL, NULL, constant(env, META_WORDS), napi_enumerable, NULL},
  };
  napi_define_properties(env, exports, sizeof properties / sizeof properties[0], properties);
  return exports;
}
