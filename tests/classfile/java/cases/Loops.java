package cases;

final class Loops {
    static int sum(int n) {
        int total = 0;
        for (int i = 0; i < n; i++) {
            total += i;
        }
        return total;
    }

    static long nested(int n) {
        long total = 0;
        outer:
        for (int i = 0; i < n; i++) {
            int j = 0;
            while (true) {
                if (j > i) {
                    continue outer;
                }
                if (i * j > 40) {
                    break outer;
                }
                total += (long) i * j;
                j++;
            }
        }
        return total;
    }

    static int doWhile(int n) {
        int steps = 0;
        do {
            n = (n % 2 == 0) ? n / 2 : 3 * n + 1;
            steps++;
        } while (n != 1);
        return steps;
    }

    static int earlyReturns(int x) {
        for (int i = 0; ; i++) {
            if (i == x) return i * 2;
            if (i > 100) return -1;
        }
    }

    static void run() {
        System.out.println("sum " + sum(10) + " " + sum(0));
        System.out.println("nested " + nested(12));
        System.out.println("doWhile " + doWhile(27));
        System.out.println("early " + earlyReturns(5) + " " + earlyReturns(500));
    }
}
