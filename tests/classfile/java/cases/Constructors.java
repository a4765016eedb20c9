package cases;

final class Constructors {
    static class Base {
        final int value;

        Base(int value) {
            if (value == 13) throw new IllegalArgumentException("unlucky base");
            this.value = value;
        }
    }

    static final class Derived extends Base {
        final String label;

        { initCount++; }

        // The super argument is computed with branches before `this` is initialized.
        Derived(int x) {
            super(x > 0 ? a(x) : b(x));
            label = "d" + value;
        }

        Derived() {
            this(3);
        }

        Derived(String s) {
            this(s.length() > 2 ? Integer.parseInt(s) : -s.length());
        }

        // The superclass constructor itself throws for 13.
        Derived(long v) {
            super((int) v);
            label = "long";
        }

        static int initCount;
    }

    static int a(int x) {
        if (x == 99) throw new IllegalStateException("a failed");
        return x * 10;
    }

    static int b(int x) {
        return x - 1;
    }

    static final class Pair {
        final Object left;
        final Object right;

        Pair(Object left, Object right) {
            this.left = left;
            this.right = right;
        }

        @Override
        public String toString() {
            return "(" + left + "," + right + ")";
        }
    }

    // `new` whose constructor arguments contain branches: stack map frames hold uninitialized(offset).
    static Pair make(boolean flag) {
        return new Pair(flag ? new Pair("x", null) : "y", new Pair(flag ? "p" : "q", flag ? 1 : 2));
    }

    static final class Thrower {
        Thrower(boolean fail) {
            super();
            if (fail) throw new UnsupportedOperationException("after super");
        }
    }

    static void run() {
        System.out.println("derived " + new Derived(4).label + " " + new Derived(-4).label + " "
                + new Derived().label + " " + new Derived("123").label + " " + new Derived("ab").label);
        for (int x : new int[] {99, 13, 14}) {
            try {
                System.out.println("made " + new Derived(x).label);
            } catch (RuntimeException e) {
                System.out.println("ctor failed " + e.getMessage());
            }
        }
        try {
            new Derived("zz9");
        } catch (NumberFormatException e) {
            System.out.println("ctor parse failed");
        }
        try {
            new Derived(13L);
        } catch (IllegalArgumentException e) {
            System.out.println("super failed " + e.getMessage());
        }
        System.out.println("pairs " + make(true) + " " + make(false) + " " + Derived.initCount);
        new Thrower(false);
        try {
            new Thrower(true);
        } catch (UnsupportedOperationException e) {
            System.out.println("thrower " + e.getMessage());
        }
    }
}
