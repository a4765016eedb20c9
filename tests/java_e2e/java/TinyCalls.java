// "tiny" calls a one-line method billions of times through an inline cache (the tests keep C2 from inlining
// it), so a large share of its samples catch the callee in its entry or exit: the inline cache check, the
// frame being built or torn down, the nmethod entry barrier's check, the safepoint poll on return.
public final class TinyCalls {
  interface Step {
    int apply(int x);
  }

  static final class Increment implements Step {
    public int apply(int x) {
      return x + 1; // LINE:apply-body
    }
  }

  static volatile int sink;

  public static void main(String[] args) throws Throwable {
    Step[] steps = {new Increment(), new Increment()};
    E2eSupport.start("tiny", () -> callForever(steps));
    E2eSupport.runFor(E2eSupport.seconds(args));
  }

  static void callForever(Step[] steps) {
    int acc = 0;
    while (true) {
      for (int i = 0; i < 1000; i++) {
        acc += steps[i & 1].apply(i); // LINE:calls-apply
      }
      sink = acc;
    }
  }
}
