// "recursion" descends 150 frames of descend() (the tests keep C2 from inlining it) and spends its time in
// leafWork() at the bottom, so nearly every sample holds all 150 recursive frames.
public final class DeepRecursion {
  static final int DEPTH = 150;
  static volatile long sink;

  public static void main(String[] args) throws Throwable {
    E2eSupport.start("recursion", DeepRecursion::recurseForever);
    E2eSupport.runFor(E2eSupport.seconds(args));
  }

  static void recurseForever() {
    while (true) {
      sink += descend(DEPTH);
    }
  }

  // Frames of descend: exactly `remaining` of them when leafWork runs.
  static long descend(int remaining) {
    if (remaining == 1) {
      return leafWork(remaining); // LINE:descend-calls-leaf
    }
    return descend(remaining - 1) ^ remaining; // LINE:descend-recurses
  }

  static long leafWork(long seed) { // LINE:leaf-decl
    long h = seed;
    for (int i = 0; i < 1_000_000; i++) {
      h = h * 6364136223846793005L + 1442695040888963407L; // LINE:leaf-mix
    }
    return h; // LINE:leaf-return
  }
}
