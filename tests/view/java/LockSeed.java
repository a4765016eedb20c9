import java.util.concurrent.locks.ReentrantLock;

// Workload for the lock views, recorded by the JDK's own JFR (see locks.jfc): every kind of lock wait
// the JDK records, each on a class of its own so the tests can tell them apart:
//   - jdk.JavaMonitorEnter: threads "ledger-1..3" contend on one synchronized Ledger;
//   - jdk.JavaMonitorWait: "waiter" waits on a Mailbox with wait(5), "poster" notifies it now and then (so
//     some waits have a notifier and the timed-out ones none);
//   - jdk.ThreadPark: "vault-1" and "vault-2" contend on a ReentrantLock (parkedClass
//     java.util.concurrent.locks.ReentrantLock$NonfairSync).
// Runs for the number of milliseconds given as the first argument.
public class LockSeed {
    static final class Ledger {
        long total;

        // Holds the monitor for about a millisecond, so the other ledger threads block on it.
        synchronized void add(long amount) {
            total += amount;
            hold(1);
        }
    }

    static final class Mailbox {
        int letters;
    }

    static volatile long sink;

    // Busy rather than sleeping: a sleeping holder would add jdk.ThreadSleep-like waits of its own.
    static void hold(long millis) {
        long end = System.nanoTime() + millis * 1_000_000L;
        while (System.nanoTime() < end) sink++;
    }

    static Thread start(String name, Runnable body) {
        Thread t = new Thread(body, name);
        t.start();
        return t;
    }

    // Each kind of wait in a method of its own, so that it is the wait's site in the views.
    static void keepBooks(Ledger ledger, long end) {
        while (System.nanoTime() < end) ledger.add(1);
    }

    static void awaitMail(Mailbox mailbox, long end) {
        try {
            while (System.nanoTime() < end) {
                synchronized (mailbox) {
                    mailbox.wait(5);
                }
            }
        } catch (InterruptedException e) {
            throw new RuntimeException(e);
        }
    }

    static void post(Mailbox mailbox, long end) {
        while (System.nanoTime() < end) {
            synchronized (mailbox) {
                mailbox.letters++;
                mailbox.notify();
            }
            hold(12);
        }
    }

    static void openVault(ReentrantLock vault, long end) {
        while (System.nanoTime() < end) {
            vault.lock();
            try {
                hold(1);
            } finally {
                vault.unlock();
            }
        }
    }

    public static void main(String[] args) throws Exception {
        final long end = System.nanoTime() + Long.parseLong(args[0]) * 1_000_000L;
        final Ledger ledger = new Ledger();
        final Mailbox mailbox = new Mailbox();
        final ReentrantLock vault = new ReentrantLock();
        Thread[] threads = new Thread[7];
        for (int i = 0; i < 3; i++) threads[i] = start("ledger-" + (i + 1), () -> keepBooks(ledger, end));
        threads[3] = start("waiter", () -> awaitMail(mailbox, end));
        threads[4] = start("poster", () -> post(mailbox, end));
        for (int i = 0; i < 2; i++) threads[5 + i] = start("vault-" + (i + 1), () -> openVault(vault, end));
        for (Thread t : threads) t.join();
    }
}
