// Interpreted frames between compiled ones: "mixed" runs compiled code (Mixed.outer, Mixed.inner) that calls
// through Fresh.middle, a class first used only after the rest is warm and which the tests exclude from
// compilation and inlining (-XX:CompileCommand=exclude and dontinline), so it stays interpreted while its callers and callees
// are compiled.
public final class MixedModes {
  static volatile long sink;

  public static void main(String[] args) throws Throwable {
    E2eSupport.start("mixed", MixedModes::runForever);
    E2eSupport.runFor(E2eSupport.seconds(args));
  }

  static void runForever() {
    for (int i = 0; i < 20_000; i++) sink += Mixed.inner(i); // warm up the compiled side first
    while (true) {
      sink += Mixed.outer(sink);
    }
  }
}

final class Mixed {
  static long outer(long seed) {
    return Fresh.middle(seed) + 1; // LINE:outer-calls-middle
  }

  static long inner(long seed) { // LINE:inner-decl
    long h = seed;
    for (int i = 0; i < 20_000; i++) {
      h = h * 6364136223846793005L + 1442695040888963407L; // LINE:inner-mix
    }
    return h; // LINE:inner-return
  }
}

final class Fresh {
  static long middle(long seed) {
    return Mixed.inner(seed) ^ seed; // LINE:middle-calls-inner
  }
}
