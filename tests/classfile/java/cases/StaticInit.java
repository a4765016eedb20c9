package cases;

final class StaticInit {
    static final int[] SQUARES;

    static {
        SQUARES = new int[10];
        for (int i = 0; i < SQUARES.length; i++) {
            SQUARES[i] = i * i;
        }
    }

    static final class Broken {
        static final int VALUE = compute();

        static int compute() {
            throw new IllegalStateException("static init fails");
        }
    }

    static void run() {
        System.out.println("squares " + SQUARES[9]);
        for (int i = 0; i < 2; i++) {
            try {
                System.out.println(Broken.VALUE);
            } catch (Throwable t) {
                System.out.println("broken " + t.getClass().getSimpleName());
            }
        }
    }
}
