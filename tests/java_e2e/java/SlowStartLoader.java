// A system class loader that takes its time to be made (-Djava.system.class.loader=SlowStartLoader
// -Dslowstart.ms=N): HotSpot builds it late in its start-up, after its attach listener can answer and before
// JVMTI's live phase, so a JVM started with it stays "too early" for an agent for N milliseconds.
public final class SlowStartLoader extends ClassLoader {
  static {
    ClassLoader.registerAsParallelCapable();
  }

  public SlowStartLoader(ClassLoader parent) {
    super(parent);
    try {
      Thread.sleep(Long.getLong("slowstart.ms", 1500));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
