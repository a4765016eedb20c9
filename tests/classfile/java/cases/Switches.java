package cases;

/** tableswitch and lookupswitch at every alignment (each preceding iinc is 3 bytes). */
final class Switches {
    static int table0(int x) {
        switch (x) {
            case 1: return 10;
            case 2: return 20;
            case 3: return 30;
            case 4: return 40;
            default: return -1;
        }
    }

    static int table1(int x) {
        x++;
        switch (x) {
            case 1: return 10;
            case 2: return 20;
            case 3: return 30;
            case 4: return 40;
            default: return -1;
        }
    }

    static int table2(int x) {
        x++;
        x++;
        switch (x) {
            case 1: return 10;
            case 2: return 20;
            case 3: return 30;
            case 4: return 40;
            default: return -1;
        }
    }

    static int table3(int x) {
        x++;
        x++;
        x++;
        switch (x) {
            case 1: return 10;
            case 2: return 20;
            case 3: return 30;
            case 4: return 40;
            default: return -1;
        }
    }

    static int lookup0(int x) {
        switch (x) {
            case -1000: return 1;
            case 7: return 2;
            case 100000: return 3;
            default: return 0;
        }
    }

    static int lookup1(int x) {
        x++;
        switch (x) {
            case -1000: return 1;
            case 7: return 2;
            case 100000: return 3;
            default: return 0;
        }
    }

    static int lookup2(int x) {
        x++;
        x++;
        switch (x) {
            case -1000: return 1;
            case 7: return 2;
            case 100000: return 3;
            default: return 0;
        }
    }

    static int lookup3(int x) {
        x++;
        x++;
        x++;
        switch (x) {
            case -1000: return 1;
            case 7: return 2;
            case 100000: return 3;
            default: return 0;
        }
    }

    static String strings(String s) {
        switch (s) {
            case "alpha": return "A";
            case "beta": return "B";
            case "gamma": return "G";
            default: return "?";
        }
    }

    static int fallThrough(int x) {
        int r = 0;
        switch (x) {
            case 1: r += 1;
            case 2: r += 2;
            case 3: r += 3; break;
            default: r = -1;
        }
        return r;
    }

    static void run() {
        StringBuilder out = new StringBuilder("switches");
        for (int x = -1; x <= 6; x++) {
            out.append(' ').append(table0(x)).append(table1(x)).append(table2(x)).append(table3(x));
        }
        for (int x : new int[] {-1001, -1000, 6, 7, 99999, 100000, 5}) {
            out.append(' ').append(lookup0(x)).append(lookup1(x)).append(lookup2(x)).append(lookup3(x));
        }
        for (String s : new String[] {"alpha", "beta", "gamma", "delta"}) {
            out.append(' ').append(strings(s));
        }
        for (int x = 0; x <= 4; x++) {
            out.append(' ').append(fallThrough(x));
        }
        System.out.println(out);
    }
}
