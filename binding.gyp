{
  "targets": [
    {
      "target_name": "udp_batch",
      "sources": ["native/udp_batch.c"],
      "cflags": ["-O2", "-Wall", "-Wextra"],
      "conditions": [["OS!='linux'", {"type": "none", "sources!": ["native/udp_batch.c"]}]]
    },
    {
      "target_name": "c_heap",
      "sources": ["native/c_heap.c"],
      "cflags": ["-O2", "-Wall", "-Wextra"],
      "conditions": [["OS!='linux'", {"type": "none", "sources!": ["native/c_heap.c"]}]]
    }
  ]
}
