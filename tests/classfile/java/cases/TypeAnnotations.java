package cases;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.ArrayList;
import java.util.List;

/** Type annotations inside code carry bytecode offsets (locals, casts, instanceof, new) that must move. */
final class TypeAnnotations {
    @Target(ElementType.TYPE_USE)
    @Retention(RetentionPolicy.RUNTIME)
    @interface Checked {}

    @Target(ElementType.TYPE_USE)
    @interface Hidden {}

    static int measure(Object o) {
        List<@Checked String> list = new ArrayList<@Hidden String>();
        if (o instanceof @Checked String) {
            @Checked String s = (@Checked String) o;
            list.add(s);
            return s.length() + list.size();
        }
        for (@Hidden int i = 0; i < 3; i++) {
            list.add("x" + i);
        }
        return list.size();
    }

    static void run() {
        System.out.println("type annotations " + measure("four") + " " + measure(7));
    }
}
