package jfrbpf.test;

import java.io.PrintStream;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The test stand-in for the agent's hook class: counts enter/exit calls per method index. An exit counts
 * only when it carries what its enter returned and the recording the rewriter was given (RECORDING), so a
 * start local lost or clobbered between them shows as a missing exit.
 */
public final class Hooks {
    public static final int RECORDING = 40000;  // beyond sipush: the rewriter loads it with ldc_w
    private static final long TOKEN = 0x5eed_0000_0000L;
    private static final int CAPACITY = 1 << 17;
    private static final AtomicLongArray ENTERS = new AtomicLongArray(CAPACITY);
    private static final AtomicLongArray EXITS = new AtomicLongArray(CAPACITY);

    private Hooks() {}

    public static long enter(int index) {
        ENTERS.incrementAndGet(index);
        return TOKEN | index;
    }

    public static void exit(int index, int recording, long start) {
        if (recording == RECORDING && start == (TOKEN | index)) {
            EXITS.incrementAndGet(index);
        }
    }

    /** One line per index that was called: "index enters exits". */
    public static void print(PrintStream out) {
        for (int i = 0; i < CAPACITY; i++) {
            long enters = ENTERS.get(i);
            long exits = EXITS.get(i);
            if (enters != 0 || exits != 0) {
                out.println(i + " " + enters + " " + exits);
            }
        }
    }
}
