import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * The method timing tests' workload: waits until the file named by its first argument exists (so that
 * jfrbpf has instrumented it), then calls each method a known number of times, prints what it did
 * ("calls <what> <count>", "nap-average-ns <ns>") and "done", and waits to be killed.
 */
public class TimingWorkload {
    @Retention(RetentionPolicy.RUNTIME)
    @Target({ElementType.METHOD, ElementType.TYPE})
    @interface Timed {}

    static final int TICKS = 100_000;
    static final int NAPS = 40;
    static final int FAILURES = 1000;
    static final int WIDGETS = 500;
    static final int ANNOTATED = 300;
    static final int DEPTH_CALLS = 5;
    static final int DEPTH = 200;
    static final int DEEP_THROWS = 20;
    static final int THROW_DEPTH = 50;
    static final int BROKEN_CHILDREN = 10;

    static long counter;
    static long sink;

    static void tick() {
        counter++;
    }

    static void nap() throws InterruptedException {
        Thread.sleep(5);
    }

    static int fail(int i) {
        if (i >= 0) {
            throw new IllegalStateException("boom " + i);
        }
        return i;
    }

    static final class Widget {
        final int id;

        Widget(int id) {
            this.id = id;
        }
    }

    static final class LateInit {
        static final long STAMP;

        static {
            STAMP = System.nanoTime();
        }

        static long stamp() {
            return STAMP;
        }
    }

    static final class Annotated {
        @Timed
        static int work(int x) {
            return x * 31 + 7;
        }

        static int plain(int x) {
            return x - 1;
        }
    }

    static final class Overloads {
        static int f() {
            return 1;
        }

        static int f(int x) {
            return x + 1;
        }

        static int f(String s) {
            return s.length();
        }
    }

    static class Base {
        Base(boolean fail) {
            if (fail) {
                throw new IllegalArgumentException("base refuses");
            }
        }
    }

    static final class BrokenChild extends Base {
        BrokenChild() {
            super(true);
        }
    }

    static int depth(int n) {
        return n == 0 ? 0 : 1 + depth(n - 1);
    }

    static void deepThrow(int n) {
        if (n == 0) {
            throw new RuntimeException("deep");
        }
        deepThrow(n - 1);
    }

    static int brokenConstructors() {
        int refused = 0;
        for (int i = 0; i < BROKEN_CHILDREN; i++) {
            try {
                new BrokenChild();
            } catch (IllegalArgumentException expected) {
                refused++;
            }
        }
        return refused;
    }

    public static void main(String[] args) throws Exception {
        Path go = Path.of(args[0]);
        System.out.println("ready " + ProcessHandle.current().pid());
        while (!Files.exists(go)) {
            Thread.sleep(20);
        }

        for (int i = 0; i < TICKS; i++) {
            tick();
        }
        System.out.println("calls tick " + TICKS);

        long napNanos = 0;
        for (int i = 0; i < NAPS; i++) {
            long start = System.nanoTime();
            nap();
            napNanos += System.nanoTime() - start;
        }
        System.out.println("nap-average-ns " + napNanos / NAPS);

        int failed = 0;
        for (int i = 0; i < FAILURES; i++) {
            try {
                sink += fail(i);
            } catch (IllegalStateException expected) {
                failed++;
            }
        }
        System.out.println("calls fail " + failed);

        for (int i = 0; i < WIDGETS; i++) {
            sink += new Widget(i).id;
        }
        System.out.println("calls widget " + WIDGETS);

        sink += LateInit.stamp();
        System.out.println("calls late-init 1");

        for (int i = 0; i < ANNOTATED; i++) {
            sink += Annotated.work(i) + Annotated.plain(i);
        }
        System.out.println("calls annotated " + ANNOTATED);

        for (int i = 0; i < 100; i++) sink += Overloads.f();
        for (int i = 0; i < 200; i++) sink += Overloads.f(i);
        for (int i = 0; i < 300; i++) sink += Overloads.f("x");
        System.out.println("calls overloads 100 200 300");

        for (int i = 0; i < DEPTH_CALLS; i++) {
            sink += depth(DEPTH);
        }
        System.out.println("calls depth " + DEPTH_CALLS * (DEPTH + 1));

        int thrown = 0;
        for (int i = 0; i < DEEP_THROWS; i++) {
            try {
                deepThrow(THROW_DEPTH);
            } catch (RuntimeException expected) {
                thrown++;
            }
        }
        System.out.println("calls deep-throw " + thrown * (THROW_DEPTH + 1));

        System.out.println("calls broken-children " + brokenConstructors());

        // A Java 5 class (seed.Jsr, from the classfile tests' seeds) with a jsr subroutine, which the agent
        // must leave alone, next to a method it can instrument.
        Class<?> old = Class.forName("seed.Jsr");
        old.getMethod("withJsr").invoke(null);
        sink += (Integer) old.getMethod("wide", int.class).invoke(null, 5);
        System.out.println("calls jsr 1");

        Map<Integer, Integer> map = new HashMap<>();
        for (int i = 0; i < 10_000; i++) {
            map.put(i, i);
        }
        sink += map.size();
        System.out.println("calls hashmap " + map.size());

        // A second round of ticks after all the above: exceptions and unfinished constructors left nothing behind.
        for (int i = 0; i < TICKS; i++) {
            tick();
        }
        System.out.println("calls tick-again " + TICKS);
        System.out.println("done " + (sink != 42 ? "ok" : ""));
        while (true) {
            Thread.sleep(1000);
        }
    }
}
