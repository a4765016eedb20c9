// Test JVM: announces that it is initialised, then idles until killed (or for the given number of ms).
public class Sleeper {
  public static void main(String[] args) throws Exception {
    System.out.println("ready");
    System.out.flush();
    Thread.sleep(args.length > 0 ? Long.parseLong(args[0]) : 120_000L);
  }
}
