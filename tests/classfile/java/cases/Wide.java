package cases;

final class Wide {
    static double mix(long a, double b, int c, long d) {
        long l = a * d;
        double x = b / 3;
        float f = c;
        for (int i = 0; i < c; i++) {
            l += i;
            x *= 1.5;
        }
        return l + x + f;
    }

    static long[] fill(int n) {
        long[] values = new long[n];
        double acc = 0.5;
        for (int i = 0; i < n; i++) {
            acc += i;
            values[i] = (long) acc;
        }
        return values;
    }

    static void run() {
        System.out.println("wide " + mix(3L, 9.0, 4, 7L) + " " + fill(5)[4] + " " + WideLocals.manyLocals(3));
    }
}
