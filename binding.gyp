{
  "targets": [
    {
      "target_name": "udp_batch",
      "sources": ["native/udp_batch.c"],
      "cflags": ["-O2", "-Wall", "-Wextra"],
      "conditions": [["OS!='linux'", {"type": "none", "sources!": ["native/udp_batch.c"]}]]
    }
  ]
}
