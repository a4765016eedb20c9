// A JVM that publishes its OpenTelemetry process context through the tests' writer (otel_writer.c, over JNI),
// as a service's SDK would, then burns CPU until killed: OtelContextApp JNI_LIBRARY SERVICE_NAME.
public final class OtelContextApp {
  static native int publish(String serviceName);

  static volatile long sink;

  public static void main(String[] args) {
    System.load(args[0]);
    if (publish(args[1]) != 0) throw new IllegalStateException("publish failed");
    System.out.println("published");
    System.out.flush();
    for (long i = 0; ; i++) sink += i * i;
  }
}
