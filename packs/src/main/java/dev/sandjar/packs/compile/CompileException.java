package dev.sandjar.packs.compile;

/**
 * The compiler could not do its work at all (npm or node missing or failing, a file it cannot
 * write): not a refusal of a package, which is a diagnostic.
 */
public final class CompileException extends Exception {
    private static final long serialVersionUID = 1L;

    public CompileException(String message) {
        super(message);
    }
}
