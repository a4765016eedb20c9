#include "switch_records.h"

#include <stdio.h>
#include <string.h>

static void add_attribute(struct switch_record* r, uint8_t key, const char* value) {
  size_t length = strlen(value);
  r->attrs[r->attrs_size] = key;
  r->attrs[r->attrs_size + 1] = (uint8_t)length;
  memcpy(&r->attrs[r->attrs_size + 2], value, length);
  r->attrs_size = (uint16_t)(r->attrs_size + 2 + length);
}

void switch_record_fill(struct switch_record* r, int thread, int context) {
  memset(r, 0, sizeof *r);
  memset(r->trace_id, 0x5a, sizeof r->trace_id);
  r->trace_id[0] = (uint8_t)(0x10 + thread);
  r->trace_id[1] = (uint8_t)context;
  memset(r->span_id, 0x33, sizeof r->span_id);
  r->span_id[0] = (uint8_t)(0x20 + thread);
  r->span_id[1] = (uint8_t)context;
  r->valid = 1;
  r->trace_flags = context % 2 == 0 ? 1 : 0;
  char value[32];
  snprintf(value, sizeof value, "/route/%d", context);
  add_attribute(r, 0, value);
  snprintf(value, sizeof value, "t%d", thread);
  add_attribute(r, 1, value);
}
