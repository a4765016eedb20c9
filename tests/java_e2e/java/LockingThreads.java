// Threads that wait for each other, for the lock tests: "blocked-1".."blocked-3" take turns holding one
// Ledger's monitor for about a millisecond each (so each spends most of its time blocked entering it),
// "waiter" calls Mailbox.wait(3) without end, woken early now and then by "notifier", and "parker-1" and
// "parker-2" take turns holding a ReentrantLock for about a millisecond (so they park waiting for it). main switches on the
// JVM's contention accounting first, then every 100 ms stamps each thread's blocked and waited time
// (ThreadInfo.getBlockedTime / getWaitedTime, in ms) with System.nanoTime (CLOCK_MONOTONIC, the recording's
// clock) and writes all the stamps to the file named by its argument, as lines "<thread> <nanoTime>
// <blockedMs> <waitedMs>". Runs until killed.
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

public final class LockingThreads {
  static final class Ledger {
    long balance;
  }

  static final class Mailbox {}

  static final Ledger ledger = new Ledger();
  static final Mailbox mailbox = new Mailbox();
  static final ReentrantLock vault = new ReentrantLock();

  public static void main(String[] args) throws Exception {
    ThreadMXBean mx = ManagementFactory.getThreadMXBean();
    mx.setThreadContentionMonitoringEnabled(true);
    Path truth = Path.of(args[0]);
    List<Thread> threads = new ArrayList<>();
    for (int i = 1; i <= 3; ++i) threads.add(E2eSupport.start("blocked-" + i, LockingThreads::takeTurns));
    threads.add(E2eSupport.start("waiter", LockingThreads::waitForMail));
    for (int i = 1; i <= 2; ++i) threads.add(E2eSupport.start("parker-" + i, LockingThreads::takeVaultTurns));
    E2eSupport.start("notifier", LockingThreads::notifyNowAndThen);
    long[] ids = threads.stream().mapToLong(Thread::getId).toArray();
    StringBuilder stamps = new StringBuilder();
    Path partial = truth.resolveSibling(truth.getFileName() + ".part");
    while (true) {
      Thread.sleep(100);
      long before = System.nanoTime();
      ThreadInfo[] infos = mx.getThreadInfo(ids);
      long at = (before + System.nanoTime()) / 2;
      for (ThreadInfo info : infos) {
        if (info == null) continue;
        stamps.append(info.getThreadName()).append(' ').append(at).append(' ').append(info.getBlockedTime())
            .append(' ').append(info.getWaitedTime()).append('\n');
      }
      Files.writeString(partial, stamps);
      Files.move(partial, truth, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }
  }

  static void takeTurns() {
    while (true) enterLedger();
  }

  static void enterLedger() {
    synchronized (ledger) {  // LINE:enter
      long until = System.nanoTime() + 1_000_000;
      while (System.nanoTime() < until) ledger.balance++;
    }
  }

  static void takeVaultTurns() {
    while (true) openVault();
  }

  static void openVault() {
    vault.lock();  // LINE:park
    try {
      long until = System.nanoTime() + 1_000_000;
      while (System.nanoTime() < until) ledger.balance--;
    } finally {
      vault.unlock();
    }
  }

  static void waitForMail() {
    while (true) awaitMail();
  }

  static void awaitMail() {
    synchronized (mailbox) {
      try {
        mailbox.wait(3);  // LINE:wait
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  static void notifyNowAndThen() {
    while (true) {
      try {
        Thread.sleep(10);
      } catch (InterruptedException e) {
        return;
      }
      synchronized (mailbox) {
        mailbox.notifyAll();
      }
    }
  }
}
