package cases;

final class Throwers {
    static void alwaysThrows(int i) {
        throw new IllegalStateException("boom " + i);
    }

    static int recurse(int depth) {
        if (depth == 0) throw new ArithmeticException("bottom");
        return recurse(depth - 1) + 1;
    }

    static int divide(int a, int b) {
        return a / b;  // throws from an instruction, not from athrow
    }

    static Object nullDeref(Object o) {
        return o.toString();
    }

    static void run() {
        int caught = 0;
        for (int i = 0; i < 5; i++) {
            try {
                alwaysThrows(i);
            } catch (IllegalStateException e) {
                caught++;
            }
        }
        try {
            recurse(6);
        } catch (ArithmeticException e) {
            caught++;
        }
        try {
            divide(1, 0);
        } catch (ArithmeticException e) {
            caught++;
        }
        try {
            nullDeref(null);
        } catch (NullPointerException e) {
            caught++;
        }
        System.out.println("throwers " + caught + " " + divide(9, 3));
    }
}
