package cases;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

final class Types {
    enum Planet {
        MERCURY(3.303e+23) {
            @Override
            String kind() {
                return "rocky";
            }
        },
        JUPITER(1.9e+27) {
            @Override
            String kind() {
                return "gas";
            }
        };

        final double mass;

        Planet(double mass) {
            this.mass = mass;
        }

        abstract String kind();
    }

    static final class Box<T extends Comparable<T>> implements Comparable<Box<T>> {
        final T value;

        Box(T value) {
            this.value = value;
        }

        @Override
        public int compareTo(Box<T> other) {  // javac adds a bridge compareTo(Object)
            return value.compareTo(other.value);
        }
    }

    static <T extends Comparable<T>> T max(List<T> values) {
        T best = null;
        for (T v : values) {
            if (best == null || v.compareTo(best) > 0) best = v;
        }
        return best;
    }

    static String planet(Planet p) {
        switch (p) {
            case MERCURY:
                return "first";
            case JUPITER:
                return "fifth";
            default:
                return "?";
        }
    }

    static void run() {
        List<Box<String>> boxes = new ArrayList<>();
        for (String s : new String[] {"pear", "apple", "zucchini", "fig"}) {
            boxes.add(new Box<>(s));
        }
        boxes.sort(Comparator.naturalOrder());
        StringBuilder sb = new StringBuilder("types");
        for (Box<String> b : boxes) {
            sb.append(' ').append(b.value);
        }
        sb.append(' ').append(max(List.of(3, 9, 4)));
        for (Planet p : Planet.values()) {
            sb.append(' ').append(p).append(':').append(p.kind()).append(':').append(planet(p));
        }
        sb.append(' ').append(Planet.valueOf("JUPITER").mass > 1e27);
        Object[][] grid = new String[2][3];
        grid[1][2] = "cell";
        sb.append(' ').append(grid[1][2]).append(' ').append(grid.getClass().getSimpleName());
        System.out.println(sb);
    }
}
