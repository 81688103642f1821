{
  "targets": [
    {
      "target_name": "stratus_udp",
      "sources": ["stratus_udp.c", "udp_batch.c", "answer_table.c"],
      "cflags": ["-O2", "-Wall", "-Wno-unused-parameter"],
      "defines": ["NAPI_VERSION=8"],
      "conditions": [["OS!='linux'", { "type": "none" }]]
    }
  ]
}
