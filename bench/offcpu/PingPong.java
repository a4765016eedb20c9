// Pairs of threads handing a token back and forth through LockSupport.park/unpark: each hand-over is a
// wake-up and a context switch on each side. Prints the hand-overs per second over its run.
import java.util.concurrent.locks.LockSupport;

public final class PingPong {
  static final class Pair {
    volatile int turn;
    final Thread[] players = new Thread[2];
    final long[] count = new long[2];

    Pair(int index) {
      for (int i = 0; i < 2; i++) {
        final int me = i;
        players[i] = new Thread(() -> {
          while (true) {
            while (turn != me) LockSupport.park();
            count[me]++;
            turn = 1 - me;
            LockSupport.unpark(players[1 - me]);
          }
        }, "player-" + index + "-" + i);
        players[i].setDaemon(true);
      }
    }

    long total() { return count[0] + count[1]; }
  }

  public static void main(String[] args) throws Exception {
    long seconds = Long.parseLong(args[0]);
    Pair[] pairs = new Pair[args.length > 1 ? Integer.parseInt(args[1]) : 2];
    for (int i = 0; i < pairs.length; i++) pairs[i] = new Pair(i);
    for (Pair pair : pairs) for (Thread t : pair.players) t.start();
    Thread.sleep(1000);  // warmed up
    long start = 0;
    for (Pair pair : pairs) start += pair.total();
    long t0 = System.nanoTime();
    Thread.sleep(seconds * 1000);
    long handOvers = -start;
    for (Pair pair : pairs) handOvers += pair.total();
    System.out.printf("handovers/s %.0f%n", handOvers / ((System.nanoTime() - t0) / 1e9));
  }
}
