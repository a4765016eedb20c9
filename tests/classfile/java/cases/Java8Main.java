package cases;

/** The scenarios that compile with --release 8. */
public final class Java8Main {
    public static void main(String[] args) throws Exception {
        Java5Main.main(args);
        Lambdas.run();
        Threads.run();
    }
}
