// Calls through HotSpot's frameless stubs, one after another, as Jetty makes them while its handlers are being
// compiled: a compiled loop (Outer.loop) calls a method the test keeps interpreted (Middle.call: through a c2i
// adapter into the interpreter's method entry), which calls a compiled one (Inner.leaf: through an i2c adapter);
// the loop also calls through megamorphic virtual and interface call sites (vtable and itable stubs). Says
// "ready" once the compiled side is compiled.
public final class StubCalls {
  static volatile long sink;

  public static void main(String[] args) throws Exception {
    for (int i = 0; i < 300; i++) sink += Outer.loop(i);
    Thread worker = new Thread(() -> {
      while (true) sink += Outer.loop(sink);
    }, "stubs");
    worker.setDaemon(true);
    worker.start();
    Thread.sleep(1000);
    System.out.println("ready");
    Thread.sleep(Long.parseLong(args[0]) * 1000);
  }
}

final class Outer {
  static final Shape[] SHAPES = {new Square(), new Circle(), new Line(), new Dot()};

  static long loop(long seed) {
    long h = seed;
    for (int i = 0; i < 1000; i++) {
      Shape shape = SHAPES[i & 3];
      h += Middle.call(h, i) + shape.area(h) + ((Scaled) shape).scale(h);
    }
    return h;
  }
}

final class Middle {
  static long call(long h, int i) {
    return Inner.leaf(h) ^ i;
  }
}

final class Inner {
  static long leaf(long h) {
    return h * 31 + 17;
  }
}

interface Scaled {
  long scale(long h);
}

abstract class Shape {
  abstract long area(long h);
}

final class Square extends Shape implements Scaled {
  long area(long h) { return h * h; }
  public long scale(long h) { return h << 1; }
}

final class Circle extends Shape implements Scaled {
  long area(long h) { return h * 3; }
  public long scale(long h) { return h << 2; }
}

final class Line extends Shape implements Scaled {
  long area(long h) { return h; }
  public long scale(long h) { return h << 3; }
}

final class Dot extends Shape implements Scaled {
  long area(long h) { return 1; }
  public long scale(long h) { return h << 4; }
}
