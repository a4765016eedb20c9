// Known hot methods, one kind per thread: "hot-primes" in Hot.computePrimes, "inline-chain" in the chain
// Inline.a -> b -> c that C2 inlines into Inline.run, "lambdas" alternating between a lambda's body and a
// static method of a hidden class. "LINE:<tag>" comments mark the lines the tests look up.
import java.io.InputStream;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.function.IntUnaryOperator;

public final class HotMethods {
  public static void main(String[] args) throws Throwable {
    MethodHandle hidden = Lambdas.hiddenSpin();
    E2eSupport.start("hot-primes", Hot::run);
    E2eSupport.start("inline-chain", Inline::run);
    E2eSupport.start("lambdas", () -> Lambdas.run(hidden));
    E2eSupport.runFor(E2eSupport.seconds(args));
  }
}

final class Hot {
  static volatile long sink;

  static void run() {
    while (true) {
      sink += computePrimes(30_000); // LINE:hot-run-calls-primes
    }
  }

  static int computePrimes(int limit) { // LINE:primes-decl
    int count = 0;
    for (int n = 2; n < limit; n++) { // LINE:primes-outer
      boolean prime = true;
      for (int d = 2; d * d <= n; d++) { // LINE:primes-inner
        if (n % d == 0) { // LINE:primes-test
          prime = false;
          break;
        }
      }
      if (prime) count++; // LINE:primes-count
    }
    return count; // LINE:primes-return
  }
}

final class Inline {
  static volatile long sink;

  static void run() { // LINE:run-decl
    int i = 0;
    while (true) { // LINE:run-loop
      sink += a(i++); // LINE:run-calls-a
    }
  }

  static long a(int x) {
    return b(x) + 1; // LINE:a-calls-b
  }

  static long b(int x) {
    return c(x) * 3; // LINE:b-calls-c
  }

  static long c(int x) { // LINE:c-decl
    long h = x;
    for (int i = 0; i < 2_000; i++) { // LINE:c-loop
      h = h * 6364136223846793005L + 1442695040888963407L; // LINE:c-mix
    }
    return h; // LINE:c-return
  }
}

final class Lambdas {
  static volatile long sink;

  static MethodHandle hiddenSpin() throws Throwable {
    byte[] bytes;
    try (InputStream in = Lambdas.class.getResourceAsStream("HiddenWork.class")) {
      bytes = in.readAllBytes();
    }
    MethodHandles.Lookup lookup = MethodHandles.lookup().defineHiddenClass(bytes, true);
    return lookup.findStatic(lookup.lookupClass(), "spin", MethodType.methodType(long.class, long.class));
  }

  static void run(MethodHandle hidden) {
    IntUnaryOperator op = x -> { // LINE:lambda-decl
      int h = x;
      for (int i = 0; i < 5_000; i++) { // LINE:lambda-loop
        h = h * 31 + (h >>> 5); // LINE:lambda-mix
      }
      return h; // LINE:lambda-return
    };
    try {
      long seed = 1;
      while (true) {
        for (int i = 0; i < 200; i++) sink += op.applyAsInt(i); // LINE:lambdas-calls-op
        for (int i = 0; i < 200; i++) seed = (long) hidden.invokeExact(seed); // LINE:lambdas-calls-hidden
        sink += seed;
      }
    } catch (Throwable t) {
      throw new IllegalStateException(t);
    }
  }
}
