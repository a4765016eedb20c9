package jfrbpf.test;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;

/**
 * Runs a test program's main method, then prints the hook counts after a marker line, so a test can
 * compare the program's own output with an uninstrumented run and check the counts.
 */
public final class Runner {
    public static final String MARKER = "=== jfrbpf hook counts ===";

    public static void main(String[] args) throws Throwable {
        Method main = Class.forName(args[0]).getMethod("main", String[].class);
        try {
            main.invoke(null, (Object) new String[0]);
        } catch (InvocationTargetException e) {
            System.out.println("main threw " + e.getCause());
        }
        System.out.println(MARKER);
        Hooks.print(System.out);
    }
}
