import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Field;
import java.util.TreeMap;
import jdk.internal.misc.Unsafe;

/**
 * Runs the agent's hook class (jfrbpf.agent.MethodTimer, on the class path as the agent embeds it) the way
 * the agent arms it, on a table this program allocates, and prints what it counted for the test to check
 * (tests/timing/hook_class_jvm_test.cpp):
 *   stripe <s> expected <n> invocations <n> total <ns> min <ns> max <ns>   one line per stripe used
 *   bad <n> elsewhere <n>
 * Calls: THREADS threads of CALLS calls each on one timed slot with a start 1 µs in the past, plus one
 * 2-ms call from main; then exits of another recording and of an untimed hook on the same slot (which must
 * count nowhere: the stripe's count would exceed its expected one) and one of a slot outside the table
 * (the bad-slot counter).
 */
public final class MethodTimerCheck {
    static final int TIMED = 1 << 24;
    static final int SLOT_BASE = 100;
    static final int SLOTS = 8;
    static final int STRIPES = 16;
    static final int RECORDING = 7;
    static final int THREADS = 8;
    static final int CALLS = 100_000;

    static void set(Class<?> timer, String name, Object value) throws Exception {
        Field field = timer.getDeclaredField(name);
        field.setAccessible(true);
        field.set(null, value);
    }

    public static void main(String[] args) throws Throwable {
        Unsafe u = Unsafe.getUnsafe();
        long bytes = (long) STRIPES * SLOTS * 32;
        long rows = u.allocateMemory(bytes);
        u.setMemory(rows, bytes, (byte) 0);
        long bad = u.allocateMemory(8);
        u.putLong(bad, 0);
        Class<?> timer = Class.forName("jfrbpf.agent.MethodTimer");
        set(timer, "unsafe", u);
        set(timer, "rows", rows);
        set(timer, "stripeBytes", SLOTS * 32L);
        set(timer, "badSlotCounter", bad);
        set(timer, "stripeMask", STRIPES - 1);
        set(timer, "slotBase", SLOT_BASE);
        set(timer, "slotCount", SLOTS);
        set(timer, "traceThresholdNs", Long.MAX_VALUE);
        set(timer, "recording", RECORDING);
        MethodHandles.Lookup lookup = MethodHandles.lookup();
        MethodHandle enter = lookup.findStatic(timer, "enter", MethodType.methodType(long.class, int.class));
        MethodHandle exit = lookup.findStatic(timer, "exit", MethodType.methodType(void.class, int.class, int.class, long.class));
        final int hook = TIMED | (SLOT_BASE + 3);

        TreeMap<Long, Long> expected = new TreeMap<>();
        Thread[] workers = new Thread[THREADS];
        for (int t = 0; t < THREADS; t++) {
            workers[t] = new Thread(() -> {
                try {
                    for (int i = 0; i < CALLS; i++) {
                        long start = (long) enter.invokeExact(hook);
                        exit.invokeExact(hook, RECORDING, start - 1_000);
                    }
                } catch (Throwable e) {
                    throw new RuntimeException(e);
                }
            });
            expected.merge(workers[t].getId() & (STRIPES - 1), (long) CALLS, Long::sum);
        }
        for (Thread worker : workers) {
            worker.start();
        }
        long start = (long) enter.invokeExact(hook);
        Thread.sleep(2);
        exit.invokeExact(hook, RECORDING, start);
        expected.merge(Thread.currentThread().getId() & (STRIPES - 1), 1L, Long::sum);
        for (Thread worker : workers) {
            worker.join();
        }
        exit.invokeExact(hook, RECORDING - 1, start);             // instrumented for an earlier recording
        exit.invokeExact(SLOT_BASE + 3, RECORDING, start);        // neither timed nor traced
        exit.invokeExact(TIMED | (SLOT_BASE - 1), RECORDING, start);  // another JVM's slot

        long elsewhere = 0;
        for (int stripe = 0; stripe < STRIPES; stripe++) {
            for (int slot = 0; slot < SLOTS; slot++) {
                long row = rows + ((long) stripe * SLOTS + slot) * 32;
                long invocations = u.getLong(row);
                if (slot != 3) {
                    elsewhere += invocations;
                    continue;
                }
                if (invocations == 0 && !expected.containsKey((long) stripe)) {
                    continue;
                }
                System.out.printf("stripe %d expected %d invocations %d total %d min %d max %d%n", stripe,
                        expected.getOrDefault((long) stripe, 0L), invocations, u.getLong(row + 8),
                        u.getLong(row + 16), u.getLong(row + 24));
            }
        }
        System.out.printf("bad %d elsewhere %d%n", u.getLong(bad), elsewhere);
    }
}
