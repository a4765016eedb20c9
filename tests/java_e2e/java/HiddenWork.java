// Defined as a hidden class by HotMethods (from these bytes), so its frames belong to a hidden class.
final class HiddenWork {
  private HiddenWork() {}

  static long spin(long seed) { // LINE:hidden-decl
    long h = seed;
    for (int i = 0; i < 5_000; i++) { // LINE:hidden-loop
      h ^= h << 13; // LINE:hidden-mix
      h ^= h >>> 7;
      h ^= h << 17;
    }
    return h; // LINE:hidden-return
  }
}
