// A JVM whose metadata grows while it is recorded: a "spin" thread runs HiddenWork.spin; once the file given
// as the second argument exists, main defines the given number of hidden classes from HiddenWork's bytes and
// keeps every one of them, so the agent describes them all to the loader. Runs until killed.
import java.io.InputStream;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

public final class ManyClasses {
  static final List<Class<?>> kept = new ArrayList<>();

  public static void main(String[] args) throws Throwable {
    int count = Integer.parseInt(args[0]);
    Path trigger = Path.of(args[1]);
    byte[] template;
    try (InputStream in = ManyClasses.class.getResourceAsStream("HiddenWork.class")) {
      template = in.readAllBytes();
    }
    MethodHandles.Lookup first = MethodHandles.lookup().defineHiddenClass(template, false);
    kept.add(first.lookupClass());
    MethodHandle spin = first.findStatic(first.lookupClass(), "spin", MethodType.methodType(long.class, long.class));
    E2eSupport.start("spin", () -> {
      try {
        long seed = 1;
        while (true) seed = (long) spin.invokeExact(seed);
      } catch (Throwable t) {
        throw new IllegalStateException(t);
      }
    });
    while (!Files.exists(trigger)) Thread.sleep(20);
    for (int i = 1; i < count; i++) kept.add(MethodHandles.lookup().defineHiddenClass(template, false).lookupClass());
    System.out.println("defined " + count);
    System.out.flush();
    E2eSupport.runFor(0);
  }
}
