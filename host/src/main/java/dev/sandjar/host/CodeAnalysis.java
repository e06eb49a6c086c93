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
 * @param dynamicImports where the code calls {@code import()}, which the sandbox always refuses
 * @param requireCalls where the code calls a plain {@code require(...)}, which does not exist in
 *     the sandbox (a module that needs it cannot run)
 */
public record CodeAnalysis(
        RunError syntaxError,
        List<Import> imports,
        boolean hasExports,
        List<Position> dynamicImports,
        List<Position> requireCalls) {

    public CodeAnalysis {
        imports = List.copyOf(imports);
        dynamicImports = List.copyOf(dynamicImports);
        requireCalls = List.copyOf(requireCalls);
    }

    /** One static import: its specifier and where it is (1-based line and column). */
    public record Import(String specifier, int line, int column) {
        public Import {
            Objects.requireNonNull(specifier, "specifier");
        }
    }

    /** A position in the code, 1-based. */
    public record Position(int line, int column) {}

    /** The specifiers the code imports statically, without repeats, in order. */
    public List<String> specifiers() {
        return imports.stream().map(Import::specifier).distinct().toList();
    }
}
