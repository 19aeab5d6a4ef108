// The C heap (glibc's malloc) of a multi-threaded process: how many arenas its threads may spread
// over, and giving back the free pages inside them. glibc gives each thread that meets contention
// an arena of its own (up to 8 per core), and returns an arena's free memory to the kernel only
// from its top: the memory a thread freed after starting (the modules it compiled, the buffers it
// read its data through) stays resident in the middle of its arena. See docs/dns-server.md, "Memory".
#define NAPI_VERSION 8
#include <node_api.h>

#ifdef __GLIBC__
#include <malloc.h>
#endif

// limitArenas(count): threads that need an arena from now on share the existing ones once there
// are `count`; arenas made already stay. True when glibc took the setting.
static napi_value limit_arenas(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  int32_t count = 0;
  napi_value result;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 1 || napi_get_value_int32(env, argv[0], &count) != napi_ok || count < 1) {
    napi_throw_type_error(env, NULL, "limitArenas(count): count must be a positive integer");
    return NULL;
  }
#ifdef __GLIBC__
  napi_get_boolean(env, mallopt(M_ARENA_MAX, count) == 1, &result);
#else
  napi_get_boolean(env, 0, &result);  // another C library: its own allocator, left as it is
#endif
  return result;
}

// trim(): returns every whole free page of every arena to the kernel (madvise, not only the top of
// each arena). True when some memory was released.
static napi_value trim(napi_env env, napi_callback_info info) {
  (void)info;
  napi_value result;
#ifdef __GLIBC__
  napi_get_boolean(env, malloc_trim(0) == 1, &result);
#else
  napi_get_boolean(env, 0, &result);
#endif
  return result;
}

NAPI_MODULE_INIT() {
  napi_property_descriptor properties[] = {
      {"limitArenas", NULL, limit_arenas, NULL, NULL, NULL, napi_default, NULL},
      {"trim", NULL, trim, NULL, NULL, NULL, napi_default, NULL},
  };
  napi_define_properties(env, exports, sizeof properties / sizeof properties[0], properties);
  return exports;
}
