// SPDX-License-Identifier: GPL-2.0
/* The cheapest uprobe program there is: the baseline that jfrbpf's method timing programs are compared
 * with in bench/timing. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

__u64 hits = 0;

SEC("uprobe")
int on_bare_hit(struct pt_regs* ctx) {
  __sync_fetch_and_add(&hits, 1);
  return 0;
}
