// A virtual-thread-per-task HTTP server under load: com.sun.net.httpserver with a virtual thread per request,
// named as a thread factory numbers them ("handler-17"), each request computing for a moment, then sleeping 2 ms (a
// backend call) before it answers; and its own load, 4 client threads that send requests back to back
// (java.net.http.HttpClient). Prints "ready" once the first answers came, then runs for as many seconds as
// the first argument says and prints "done <requests>".
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;

public class VirtualThreadServer {
  static final int CLIENTS = 4;
  static volatile long sink;

  static long compute(long seed) {
    long x = seed;
    for (int i = 0; i < 100_000; i++) {
      x = x * 6364136223846793005L + 1442695040888963407L;
      x ^= x >>> 29;
    }
    return x;
  }

  static void handle(HttpExchange exchange) throws java.io.IOException {
    long x = compute(System.nanoTime());
    sink += x;
    try {
      Thread.sleep(2);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    byte[] body = ("ok " + x + "\n").getBytes();
    exchange.sendResponseHeaders(200, body.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(body);
    }
  }

  public static void main(String[] args) throws Exception {
    long end = System.nanoTime() + Long.parseLong(args[0]) * 1_000_000_000L;
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 1000);
    server.setExecutor(Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("handler-", 0).factory()));
    server.createContext("/", VirtualThreadServer::handle);
    server.start();
    URI uri = URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/");
    HttpClient client = HttpClient.newHttpClient();
    AtomicLong requests = new AtomicLong();
    CountDownLatch first = new CountDownLatch(CLIENTS);
    Thread[] clients = new Thread[CLIENTS];
    for (int i = 0; i < CLIENTS; i++) {
      clients[i] = new Thread(() -> {
        boolean counted = false;
        while (System.nanoTime() < end) {
          try {
            client.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString());
            requests.incrementAndGet();
          } catch (Exception e) {
            throw new RuntimeException(e);
          }
          if (!counted) {
            first.countDown();
            counted = true;
          }
        }
      }, "client-" + i);
      clients[i].start();
    }
    first.await();
    System.out.println("ready");
    System.out.flush();
    for (Thread c : clients) c.join();
    server.stop(0);
    System.out.println("done " + requests.get());
  }
}
