package dev.sandjar.server.cli;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Proxy;

/**
 * Handlers for POSIX signals, through {@code sun.misc.Signal} (module jdk.unsupported) reached
 * reflectively: the JDK has no supported API for SIGHUP, and a direct reference is a warning the
 * build treats as an error. A signal the platform lacks is skipped.
 */
final class Signals {
    private Signals() {}

    /**
     * Runs {@code action} on the JVM's signal thread each time {@code name} (TERM, HUP) arrives.
     * Returns false when it cannot: the platform lacks the signal, or the process was started with
     * it ignored (as {@code nohup} does for HUP), which the JVM keeps: it installs no handler then,
     * so the signal never arrives.
     */
    static boolean handle(String name, Runnable action) {
        try {
            Class<?> signal = Class.forName("sun.misc.Signal");
            Class<?> handler = Class.forName("sun.misc.SignalHandler");
            InvocationHandler call =
                    (proxy, method, args) -> {
                        if (method.getName().equals("handle")) {
                            action.run();
                            return null;
                        }
                        return switch (method.getName()) {
                            case "hashCode" -> System.identityHashCode(proxy);
                            case "equals" -> proxy == args[0];
                            default -> "signal handler " + name;
                        };
                    };
            Object h =
                    Proxy.newProxyInstance(
                            Signals.class.getClassLoader(), new Class<?>[] {handler}, call);
            Object s = signal.getConstructor(String.class).newInstance(name);
            Object before = signal.getMethod("handle", signal, handler).invoke(null, s, h);
            return before != handler.getField("SIG_IGN").get(null);
        } catch (ReflectiveOperationException | IllegalArgumentException e) {
            return false;
        }
    }
}
