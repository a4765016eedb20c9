package cases25;

/** Flexible constructor bodies (JEP 513): code, even try/catch, before super(). */
final class Flexible {
    static class Base {
        final int value;

        Base(int value) {
            if (value == 7) throw new IllegalArgumentException("base rejects 7");
            this.value = value;
        }
    }

    static final class Checked extends Base {
        final String origin;

        Checked(String text) {
            if (text.isEmpty()) throw new IllegalStateException("empty");
            int parsed;
            try {
                parsed = Integer.parseInt(text);
            } catch (NumberFormatException e) {
                parsed = -1;
            }
            origin = text;
            super(parsed);
        }
    }

    static void run() {
        StringBuilder out = new StringBuilder("flexible");
        for (String text : new String[] {"12", "x", "", "7"}) {
            try {
                Checked c = new Checked(text);
                out.append(' ').append(c.origin).append('=').append(c.value);
            } catch (RuntimeException e) {
                out.append(' ').append(e.getMessage());
            }
        }
        System.out.println(out);
    }
}
