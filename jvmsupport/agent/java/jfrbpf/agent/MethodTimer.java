package jfrbpf.agent;

import jdk.internal.misc.Unsafe;

/**
 * The Java side of jfrbpf's method timing, defined by the agent in the boot class loader of the target JVM
 * and called by every method it instruments (jvmsupport/classfile/rewriter.h):
 *
 *   on entry      long start = MethodTimer.enter(hook);
 *   on each exit  MethodTimer.exit(hook, recording, start);   (returns and a catch-all handler)
 *
 * Both are plain Java, so the JIT inlines them into the timed method: an invocation costs two reads of the
 * clock (System.nanoTime, the vDSO's CLOCK_MONOTONIC, the agent's and the loader's clock too) and atomic
 * adds to the method's row of the shared timing table (protocol/timing_table.h), with no transition to
 * native code. Rows are striped by thread, so threads timing one method rarely share a cache line; the
 * loader sums the stripes. Only a traced invocation at or over the threshold calls native code: the trace
 * stub, where the uprobe that walks the stack sits.
 *
 * With --off-cpu the agent also hooks java.lang.VirtualThread.yieldContinuation (VIRTUAL_WAIT), which lasts
 * as long as the virtual thread is unmounted: its waits are picked here by duration, and only a picked one
 * goes to native code (waited), where the agent takes the virtual thread's stack.
 *
 * Compiled with -source 8 -target 8 so that every JDK from 9 on loads it (JDK 8 has no jdk.internal.misc);
 * the agent exports jdk.internal.misc to this class's module before any call can link it. Keep the
 * constants in step with protocol/timing_records.h and protocol/timing_table.h.
 */
public final class MethodTimer {
    private static final int SLOT_MASK = 0x007fffff;
    private static final int VIRTUAL_WAIT = 1 << 23;
    private static final int TIMED = 1 << 24;
    private static final int TRACED = 1 << 25;
    private static final long ROW_BYTES = 32;
    private static final long TOTAL_OFFSET = 8;
    private static final long MIN_OFFSET = 16;
    private static final long MAX_OFFSET = 24;

    // Set by the agent through JNI before it instruments anything for a recording, `recording` last; a
    // method instrumented for an earlier recording (still running when that one ended) counts nowhere.
    private static Unsafe unsafe;
    private static long rows;            // stripe 0, row 0
    private static long stripeBytes;     // from one stripe's row to the next stripe's
    private static long badSlotCounter;  // the table header's counter of hooks outside its slots
    private static int stripeMask;
    private static int slotBase;
    private static int slotCount;
    private static long traceThresholdNs;
    private static long virtualWaitIntervalNs;  // negative: the waits of virtual threads are not reported
    private static volatile int recording;  // 0: none

    private MethodTimer() {
    }

    public static long enter(int hook) {
        return System.nanoTime();
    }

    public static void exit(int hook, int recordingOfCall, long startNs) {
        long durationNs = System.nanoTime() - startNs;
        if (recordingOfCall != recording) {
            return;
        }
        if (durationNs < 0) {
            durationNs = 0;
        }
        if ((hook & TIMED) != 0) {
            count(hook & SLOT_MASK, durationNs);
        }
        if ((hook & TRACED) != 0 && durationNs >= traceThresholdNs) {
            traced(hook, startNs, durationNs);
        }
        if ((hook & VIRTUAL_WAIT) != 0) {
            virtualThreadWaited(startNs, durationNs);
        }
    }

    // As the scheduler hooks pick waits (bpf/off_cpu.bpf.h), without per-thread state: a wait of at least the
    // interval always, standing for itself; a shorter one with a probability of its share of the interval,
    // standing for the interval. The expected weight is the wait's duration either way. The draw hashes the
    // wait's own start and duration (SplitMix64's finalizer): no shared generator to contend on.
    private static void virtualThreadWaited(long startNs, long durationNs) {
        long intervalNs = virtualWaitIntervalNs;
        if (intervalNs < 0) {
            return;
        }
        long weightNs = durationNs;
        if (durationNs < intervalNs) {
            long z = startNs * 0x9E3779B97F4A7C15L + durationNs;
            z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
            z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
            z = z ^ (z >>> 31);
            if ((z >>> 1) % intervalNs >= durationNs) {
                return;
            }
            weightNs = intervalNs;
        }
        Thread thread = Thread.currentThread();
        waited(thread.getId(), thread.getName(), startNs, durationNs, weightNs);
    }

    private static void count(int slot, long durationNs) {
        Unsafe u = unsafe;
        int row = slot - slotBase;
        if (row < 0 || row >= slotCount) {
            u.getAndAddLong(null, badSlotCounter, 1L);
            return;
        }
        long at = rows + (Thread.currentThread().getId() & stripeMask) * stripeBytes + row * ROW_BYTES;
        u.getAndAddLong(null, at, 1L);
        u.getAndAddLong(null, at + TOTAL_OFFSET, durationNs);
        long bounded = durationNs != 0 ? durationNs : 1;  // 0 in the table means no invocation yet
        long min = u.getLongVolatile(null, at + MIN_OFFSET);
        while ((min == 0 || bounded < min) && !u.compareAndSetLong(null, at + MIN_OFFSET, min, bounded)) {
            min = u.getLongVolatile(null, at + MIN_OFFSET);
        }
        long max = u.getLongVolatile(null, at + MAX_OFFSET);
        while (durationNs > max && !u.compareAndSetLong(null, at + MAX_OFFSET, max, durationNs)) {
            max = u.getLongVolatile(null, at + MAX_OFFSET);
        }
    }

    private static native void traced(int hook, long startNs, long durationNs);

    private static native void waited(long threadId, String name, long startNs, long durationNs, long weightNs);
}
