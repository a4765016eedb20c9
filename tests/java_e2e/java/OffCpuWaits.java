// Threads that each wait in one way, for the off-CPU tests: a contended synchronized (blocked), Object.wait
// (waiter), LockSupport.park (parker), a socket read (reader), file writes with fsync (fsyncer), Thread.sleep
// (sleeper), and CPU contention (preempted: three spinners on a machine of two CPUs). Each wait is short, so
// that a wait still going on when a recording stops is a small part of it; but one thread (idler) waits in
// Object.wait() from its start, through any recording. Runs until killed.
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.RandomAccessFile;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.locks.LockSupport;

public final class OffCpuWaits {
  static final Object monitor = new Object();
  static volatile long sink;

  public static void main(String[] args) throws Exception {
    Path scratch = Files.createTempFile(Path.of(args.length > 0 ? args[0] : "."), "offcpu", ".dat");
    scratch.toFile().deleteOnExit();
    ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
    Socket client = new Socket(InetAddress.getLoopbackAddress(), server.getLocalPort());
    Socket served = server.accept();

    E2eSupport.start("holder", OffCpuWaits::holdMonitor);
    E2eSupport.start("blocked", OffCpuWaits::enterMonitor);
    E2eSupport.start("waiter", OffCpuWaits::waitOnObject);
    E2eSupport.start("parker", OffCpuWaits::park);
    E2eSupport.start("writer", () -> writeEvery(served));
    E2eSupport.start("reader", () -> readSocket(client));
    E2eSupport.start("fsyncer", () -> writeAndSync(scratch));
    E2eSupport.start("sleeper", OffCpuWaits::sleep);
    E2eSupport.start("idler", OffCpuWaits::idle);
    for (String name : new String[] {"preempted", "spinner-1", "spinner-2"}) E2eSupport.start(name, OffCpuWaits::spin);
    E2eSupport.runFor(0);
  }

  static void holdMonitor() {
    while (true) {
      synchronized (monitor) {
        pause(12);
      }
      LockSupport.parkNanos(1_000_000);
    }
  }

  static void enterMonitor() {
    while (true) {
      synchronized (monitor) {  // LINE:blocked
        sink++;
      }
    }
  }

  static void waitOnObject() {
    Object signal = new Object();
    while (true) {
      synchronized (signal) {
        try {
          signal.wait(5);
        } catch (InterruptedException e) {
          return;
        }
      }
    }
  }

  static void idle() {
    Object never = new Object();
    synchronized (never) {
      try {
        never.wait();
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  static void park() {
    while (true) LockSupport.parkNanos(3_000_000);
  }

  static void writeEvery(Socket socket) {
    try (OutputStream out = socket.getOutputStream()) {
      while (true) {
        out.write(1);
        out.flush();
        pause(4);
      }
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  static void readSocket(Socket socket) {
    try (InputStream in = socket.getInputStream()) {
      while (in.read() >= 0) sink++;
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  static void writeAndSync(Path path) {
    ByteBuffer block = ByteBuffer.allocate(4096);
    try (RandomAccessFile file = new RandomAccessFile(path.toFile(), "rw"); FileChannel channel = file.getChannel()) {
      while (true) {
        block.clear();
        channel.write(block, 0);
        channel.force(true);
      }
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  static void sleep() {
    while (true) pause(7);
  }

  static void spin() {
    long h = 1;
    while (true) {
      for (int i = 0; i < 100_000; i++) h = h * 6364136223846793005L + 1442695040888963407L;
      sink = h;
    }
  }

  static void pause(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
