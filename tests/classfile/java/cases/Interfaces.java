package cases;

final class Interfaces {
    interface Shape {
        double area();

        default String describe() {
            return name() + " with area " + Math.round(area());
        }

        static Shape square(double side) {
            return new Shape() {
                @Override
                public double area() {
                    return side * side;
                }

                @Override
                public String name() {
                    return "square";
                }
            };
        }

        private String prefix() {
            return "shape:";
        }

        default String name() {
            return prefix() + getClass().getSimpleName();
        }
    }

    record Circle(double radius) implements Shape {
        Circle {
            if (radius < 0) throw new IllegalArgumentException("negative radius");
        }

        @Override
        public double area() {
            return Math.PI * radius * radius;
        }
    }

    static void run() {
        System.out.println(Shape.square(3).describe());
        System.out.println(new Circle(2).describe() + " " + new Circle(1).equals(new Circle(1)) + " " + new Circle(1));
        try {
            new Circle(-1);
        } catch (IllegalArgumentException e) {
            System.out.println("record " + e.getMessage());
        }
    }
}
