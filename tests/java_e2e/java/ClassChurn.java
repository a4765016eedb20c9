// Code that keeps appearing while a recording runs: "churn" defines a fresh hidden class from HiddenWork's
// bytes over and over and calls its spin method until the JIT compiles it, so at any moment part of the
// thread's time is in classes, methods and compiled code that are moments old.
import java.io.InputStream;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

public final class ClassChurn {
  static volatile long sink;

  public static void main(String[] args) throws Throwable {
    byte[] bytes;
    try (InputStream in = ClassChurn.class.getResourceAsStream("HiddenWork.class")) {
      bytes = in.readAllBytes();
    }
    final byte[] template = bytes;
    E2eSupport.start("churn", () -> churnForever(template));
    E2eSupport.runFor(E2eSupport.seconds(args));
  }

  static void churnForever(byte[] template) {
    try {
      long seed = 1;
      while (true) {
        // Not kept reachable: each class can be unloaded once the next one runs.
        MethodHandles.Lookup lookup = MethodHandles.lookup().defineHiddenClass(template, false);
        MethodHandle spin =
            lookup.findStatic(lookup.lookupClass(), "spin", MethodType.methodType(long.class, long.class));
        for (int i = 0; i < 400; i++) seed = (long) spin.invokeExact(seed);
        sink += seed;
      }
    } catch (Throwable t) {
      throw new IllegalStateException(t);
    }
  }
}
