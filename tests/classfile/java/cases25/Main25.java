package cases25;

/** Everything in cases.Main, plus what needs a Java 25 compiler. */
public final class Main25 {
    public static void main(String[] args) throws Exception {
        cases.Main.main(args);
        Flexible.run();
    }
}
