package cases;

/** The scenarios whose --release 8 classes still run when rewritten to class file version 49. */
public final class Java5Main {
    public static void main(String[] args) throws Exception {
        Loops.run();
        Switches.run();
        TryCatch.run();
        Sync.run();
        Constructors.run();
        StaticInit.run();
        Throwers.run();
        Wide.run();
        TypeAnnotations.run();
        BigMethod.run();
    }
}
