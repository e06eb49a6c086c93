package dev.sandjar.transport;

/** JavaScript's {@code undefined} where it must survive, for example as an object property. */
public enum Undefined {
    INSTANCE;

    @Override
    public String toString() {
        return "undefined";
    }
}
