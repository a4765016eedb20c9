package jfrbpf.discovery.test;

// A JVM for the discovery tests: says "ready" once main runs (the VM is then fully initialised: hsperfdata
// accessible, signal handlers installed) and sleeps until killed.
public class DiscoverySleeper {
  public static void main(String[] args) throws InterruptedException {
    System.out.println("ready");
    System.out.flush();
    Thread.sleep(Long.MAX_VALUE);
  }
}
