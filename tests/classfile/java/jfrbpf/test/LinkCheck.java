package jfrbpf.test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;

/**
 * Defines the named classes from a directory in a child-first loader and links each one (reflection on
 * its declared methods links, and so verifies, the class without initializing it). Prints one line per
 * class: "OK name", "VERIFY name message" or "OTHER name error".
 */
public final class LinkCheck {
    static final class DirectoryLoader extends ClassLoader {
        private final Path root;

        DirectoryLoader(Path root) {
            super(LinkCheck.class.getClassLoader());
            this.root = root;
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            synchronized (getClassLoadingLock(name)) {
                Class<?> loaded = findLoadedClass(name);
                if (loaded != null) {
                    return loaded;
                }
                Path file = root.resolve(name.replace('.', '/') + ".class");
                if (!name.startsWith("java.") && Files.isRegularFile(file)) {
                    try {
                        byte[] bytes = Files.readAllBytes(file);
                        return defineClass(name, bytes, 0, bytes.length);
                    } catch (IOException e) {
                        throw new ClassNotFoundException(name, e);
                    }
                }
                return super.loadClass(name, resolve);
            }
        }
    }

    public static void main(String[] args) throws IOException {
        DirectoryLoader loader = new DirectoryLoader(Paths.get(args[0]));
        List<String> names = Files.readAllLines(Paths.get(args[1]));
        for (String name : names) {
            try {
                Class<?> type = Class.forName(name, false, loader);
                type.getDeclaredMethods();
                System.out.println("OK " + name);
            } catch (VerifyError e) {
                System.out.println("VERIFY " + name + " " + e.getMessage().replace('\n', ' '));
            } catch (Throwable t) {
                System.out.println("OTHER " + name + " " + t.toString().replace('\n', ' '));
            }
        }
    }
}
