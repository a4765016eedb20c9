package cases;

import java.io.Closeable;

final class TryCatch {
    static int parse(String s) {
        try {
            return Integer.parseInt(s);
        } catch (NumberFormatException e) {
            return -1;
        } finally {
            counter++;
        }
    }

    static int counter;

    static String nested(int x) {
        StringBuilder sb = new StringBuilder();
        try {
            try {
                if (x == 0) throw new IllegalStateException("inner");
                sb.append("a");
            } catch (IllegalStateException e) {
                sb.append("b");
                if (x == 0) throw new RuntimeException("rethrown", e);
            } finally {
                sb.append("c");
            }
        } catch (RuntimeException e) {
            sb.append("d:").append(e.getMessage());
        }
        return sb.toString();
    }

    @SuppressWarnings("finally")
    static int finallyReturns(int x) {
        try {
            if (x > 0) throw new IllegalArgumentException();
            return 1;
        } finally {
            return 2;
        }
    }

    static String multiCatch(int x) {
        try {
            if (x == 0) throw new IllegalArgumentException("iae");
            if (x == 1) throw new UnsupportedOperationException("uoe");
            return "none";
        } catch (IllegalArgumentException | UnsupportedOperationException e) {
            return e.getMessage();
        }
    }

    static final class Resource implements Closeable {
        final String name;

        Resource(String name) {
            this.name = name;
        }

        @Override
        public void close() {
            System.out.println("close " + name);
        }
    }

    static void resources(boolean fail) {
        try (Resource a = new Resource("a"); Resource b = new Resource("b")) {
            if (fail) throw new IllegalStateException("in body");
            System.out.println("body " + a.name + b.name);
        } catch (IllegalStateException e) {
            System.out.println("caught " + e.getMessage());
        }
    }

    static void run() {
        System.out.println("parse " + parse("42") + " " + parse("x") + " " + counter);
        System.out.println("nested " + nested(0) + " " + nested(1));
        System.out.println("finallyReturns " + finallyReturns(0) + " " + finallyReturns(1));
        System.out.println("multi " + multiCatch(0) + " " + multiCatch(1) + " " + multiCatch(2));
        resources(false);
        resources(true);
    }
}
