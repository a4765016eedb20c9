package jfrbpf.test;

import java.io.PrintStream;
import java.util.concurrent.atomic.AtomicLongArray;

/** The test stand-in for the agent's native hooks: counts enter/exit calls per method index. */
public final class Hooks {
    private static final int CAPACITY = 1 << 17;
    private static final AtomicLongArray ENTERS = new AtomicLongArray(CAPACITY);
    private static final AtomicLongArray EXITS = new AtomicLongArray(CAPACITY);

    private Hooks() {}

    public static void enter(int index) {
        ENTERS.incrementAndGet(index);
    }

    public static void exit(int index) {
        EXITS.incrementAndGet(index);
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
