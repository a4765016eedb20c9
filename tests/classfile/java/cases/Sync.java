package cases;

final class Sync {
    private int value;
    private static final Object LOCK = new Object();

    synchronized int increment() {
        return ++value;
    }

    synchronized void failInside() {
        value--;
        throw new IllegalStateException("sync");
    }

    static int block(int x) {
        synchronized (LOCK) {
            if (x < 0) throw new IllegalArgumentException("negative");
            return x * 2;
        }
    }

    static void run() {
        Sync s = new Sync();
        s.increment();
        s.increment();
        try {
            s.failInside();
        } catch (IllegalStateException e) {
            System.out.println("sync caught " + e.getMessage());
        }
        int blocked = 0;
        try {
            block(-1);
        } catch (IllegalArgumentException e) {
            blocked = 1;
        }
        System.out.println("sync " + s.increment() + " " + block(21) + " " + blocked);
    }
}
