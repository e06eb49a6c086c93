package dev.sandjar.outline;

import java.io.IOException;
import java.io.InputStream;

/** A test class's own bytes, and a rewritten copy of them loaded apart from the test's class. */
final class Rewritten {
    private Rewritten() {}

    /** The class file {@code c} was loaded from. */
    static byte[] original(Class<?> c) throws IOException {
        String file = c.getName().substring(c.getName().lastIndexOf('.') + 1) + ".class";
        try (InputStream in = c.getResourceAsStream(file)) {
            return in.readAllBytes();
        }
    }

    /** Loads {@code bytes} as the class named {@code name}, apart from the test's own copy. */
    static Class<?> load(String name, byte[] bytes) throws ClassNotFoundException {
        ClassLoader loader =
                new ClassLoader(Rewritten.class.getClassLoader()) {
                    @Override
                    protected Class<?> loadClass(String n, boolean resolve)
                            throws ClassNotFoundException {
                        if (n.equals(name)) {
                            synchronized (getClassLoadingLock(n)) {
                                Class<?> c = findLoadedClass(n);
                                return c != null ? c : defineClass(n, bytes, 0, bytes.length);
                            }
                        }
                        return super.loadClass(n, resolve);
                    }
                };
        return Class.forName(name, true, loader);
    }
}
