#pragma once
// Every record of the agent -> loader channel, for code that handles them all (the agent's encoder, the
// loader's Java model, the protocol tests). The framing and record types are in stream.h; each family of
// records, with its encoder and decoder, in its own header; method timing in timing_records.h.
#include "jvmsupport/protocol/code_records.h"
#include "jvmsupport/protocol/method_records.h"
#include "jvmsupport/protocol/session_records.h"
#include "jvmsupport/protocol/stream.h"
#include "jvmsupport/protocol/thread_records.h"
#include "jvmsupport/protocol/virtual_thread_records.h"
#include "jvmsupport/protocol/vm_records.h"
