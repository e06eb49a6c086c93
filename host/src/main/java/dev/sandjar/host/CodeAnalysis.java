package dev.sandjar.host;

import java.util.List;
import java.util.Objects;

/**
 * What a parse of guest code found, read with a real JavaScript parser (acorn, running inside the
 * sandbox's own engine). From {@link Sandbox#analyze(String)}.
 *
 * @param syntaxError the parse error, or null when the code parses (as a function body with
 *     top-level {@code await} and {@code return}, or as a module)
 * @param imports the static dependencies at the top level, in order: import declarations and {@code
 *     export ... from} re-exports
 * @param hasExports whether the code has a top-level {@code export}: it then runs as a module
 * @param firstExport where the first top-level {@code export} is; null when there is none
 * @param dynamicImports where the code calls {@code import()}, which the sandbox always refuses
 * @param requireCalls where the code calls a plain {@code require(...)}, which does not exist in
 *     the sandbox (a module that needs it cannot run)
 * @param freeReferences every use of a name no scope of the code declares (a global the code
 *     expects, or a name that does not exist), in order; null when the code does not parse or nests
 *     too deeply for the scope walk
 */
public record CodeAnalysis(
        RunError syntaxError,
        List<Import> imports,
        boolean hasExports,
        Position firstExport,
        List<Position> dynamicImports,
        List<Position> requireCalls,
        List<Reference> freeReferences) {

    public CodeAnalysis {
        imports = List.copyOf(imports);
        dynamicImports = List.copyOf(dynamicImports);
        requireCalls = List.copyOf(requireCalls);
        freeReferences = freeReferences == null ? null : List.copyOf(freeReferences);
    }

    /**
     * One use of a free name, and what the code does with it there.
     *
     * @param name the name ({@code inputs}, {@code emit}, {@code Math}, a typo)
     * @param line 1-based
     * @param column 1-based
     * @param property the property read from it right there ({@code rows} in {@code inputs.rows},
     *     {@code first} in {@code stream.first(..)}), when written as a name or a string literal;
     *     null otherwise
     * @param called whether it (or that property of it) is called right there
     * @param argument the call's first argument when it is a string literal (or a template without
     *     substitutions); null otherwise
     * @param dynamicArgument whether the call has a first argument that is not such a literal
     * @param reachable false after a return, throw, break or continue in the same statement list
     *     (or under {@code if (false)}); code in functions counts as reachable
     * @param typeofOperand whether it is the operand of {@code typeof} (which never throws for a
     *     name that does not exist: a guard, not a use)
     */
    public record Reference(
            String name,
            int line,
            int column,
            String property,
            boolean called,
            String argument,
            boolean dynamicArgument,
            boolean reachable,
            boolean typeofOperand) {
        public Reference {
            Objects.requireNonNull(name, "name");
        }
    }

    /** Whether the code uses the free name {@code name} anywhere (false when that is unknown). */
    public boolean mentions(String name) {
        return freeReferences != null
                && freeReferences.stream().anyMatch(r -> r.name().equals(name));
    }

    /** One static import: its specifier and where it is (1-based line and column). */
    public record Import(String specifier, int line, int column) {
        public Import {
            Objects.requireNonNull(specifier, "specifier");
        }
    }

    /** A position in the code, 1-based. */
    public record Position(int line, int column) {}

    /**
     * An id of the parser behind {@link Sandbox#analyze} (acorn and Sandjar's reading of its tree):
     * while it stays the same, analyzing the same code gives the same result. A cache of analyses
     * that outlives the process (the pack index, docs/packs.md) names it and drops what another
     * parser found.
     */
    public static String parserId() {
        return CodeAnalyzer.ParserId.ID;
    }

    /** The specifiers the code imports statically, without repeats, in order. */
    public List<String> specifiers() {
        return imports.stream().map(Import::specifier).distinct().toList();
    }
}
