package dev.sandjar.quickjs.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The name mapping of the engine binary, derived from the package's own emscripten glue ({@code
 * emscripten-module.cjs}, carried in this jar) rather than a hand-copied table of minified names.
 *
 * <p>Exports are read off the glue's {@code c._QTS_X=b.y} assignments. Imports are the keys of the
 * glue's import object; each is recognised by what its JavaScript body does (the host callbacks by
 * the callback they forward to, the libc stubs by the browser API they wrap). Anything expected but
 * not found fails loudly, naming what is missing, so a new engine build cannot half-load.
 */
public final class EngineGlue {

    /** The imports the engine needs, by what they do. */
    public enum Import {
        MEMORY,
        ASSERT_FAIL,
        ABORT,
        PROC_EXIT,
        FD_WRITE,
        FD_CLOSE,
        FD_SEEK,
        ENVIRON_GET,
        ENVIRON_SIZES_GET,
        CLOCK_TIME_GET,
        DATE_NOW,
        LOCALTIME,
        TZSET,
        SETITIMER,
        KEEPALIVE_CLEAR,
        RESIZE_HEAP,
        HOST_CALL_FUNCTION,
        HOST_INTERRUPT,
        HOST_LOAD_MODULE_SOURCE,
        HOST_NORMALIZE_MODULE,
        HOST_FREE_HOST_REF
    }

    static final String RESOURCE = "emscripten-module.cjs";

    private static final Pattern EXPORT = Pattern.compile("c\\._(\\w+)=b\\.([\\w$]+)");
    private static final Pattern CTORS =
            Pattern.compile("calledRun=!0;if\\(!\\w+\\)\\{\\w+=!0;\\w+\\.(\\w+)\\(\\)");
    private static final Pattern IMPORT_ARG = Pattern.compile("var \\w+=\\{(\\w+):(\\w+)\\}");
    private static final Pattern MEMORY_VAR = Pattern.compile("(\\w+)=new WebAssembly\\.Memory\\(");

    private final String moduleName;
    private final Map<String, String> exports;
    private final Map<Import, String> imports;
    private final String ctorsExport;

    private EngineGlue(
            String moduleName,
            Map<String, String> exports,
            Map<Import, String> imports,
            String ctorsExport) {
        this.moduleName = moduleName;
        this.exports = exports;
        this.imports = imports;
        this.ctorsExport = ctorsExport;
    }

    private static final class Holder {
        static final EngineGlue INSTANCE = load();
    }

    /** The mapping of the engine binary bundled in this jar. */
    public static EngineGlue bundled() {
        return Holder.INSTANCE;
    }

    private static EngineGlue load() {
        try (InputStream in = EngineGlue.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(
                        "engine glue "
                                + RESOURCE
                                + " is missing from the jar; rebuild quickjs-wasm (it is fetched"
                                + " with the engine binary)");
            }
            return parse(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read engine glue " + RESOURCE, e);
        }
    }

    /** Parses glue text; fails with an {@link IllegalStateException} naming what is missing. */
    public static EngineGlue parse(String glue) {
        Map<String, String> exports = new LinkedHashMap<>();
        Matcher m = EXPORT.matcher(glue);
        while (m.find()) {
            exports.put(m.group(1), m.group(2));
        }
        Matcher ctors = CTORS.matcher(glue);
        if (!ctors.find()) {
            throw new IllegalStateException("engine glue: cannot find the constructor call");
        }
        Matcher memVar = MEMORY_VAR.matcher(glue);
        if (!memVar.find()) {
            throw new IllegalStateException("engine glue: cannot find the imported memory");
        }
        Matcher arg = IMPORT_ARG.matcher(glue);
        if (!arg.find()) {
            throw new IllegalStateException("engine glue: cannot find the import argument");
        }
        String moduleName = arg.group(1);
        Matcher obj = Pattern.compile("\\b" + Pattern.quote(arg.group(2)) + "=\\{").matcher(glue);
        if (!obj.find()) {
            throw new IllegalStateException("engine glue: cannot find the import object");
        }
        Map<String, String> entries = objectEntries(glue, obj.end() - 1);
        Map<Import, String> imports = classify(entries, memVar.group(1));
        return new EngineGlue(
                moduleName,
                Collections.unmodifiableMap(exports),
                Collections.unmodifiableMap(imports),
                ctors.group(1));
    }

    private static Map<Import, String> classify(Map<String, String> entries, String memoryVar) {
        Map<Import, String> found = new EnumMap<>(Import.class);
        List<String> unknown = new ArrayList<>();
        for (Map.Entry<String, String> e : entries.entrySet()) {
            Import kind = recognise(e.getValue(), memoryVar);
            if (kind == null) {
                unknown.add(e.getKey());
                continue;
            }
            String previous = found.put(kind, e.getKey());
            if (previous != null) {
                throw new IllegalStateException(
                        "engine glue: imports "
                                + previous
                                + " and "
                                + e.getKey()
                                + " both look like "
                                + kind);
            }
        }
        // fd_write is the one import whose body has no distinctive browser API; it is what remains.
        if (!found.containsKey(Import.FD_WRITE) && unknown.size() == 1) {
            found.put(Import.FD_WRITE, unknown.remove(0));
        }
        List<Import> missing = new ArrayList<>();
        for (Import i : Import.values()) {
            if (!found.containsKey(i)) {
                missing.add(i);
            }
        }
        if (!missing.isEmpty() || !unknown.isEmpty()) {
            throw new IllegalStateException(
                    "engine glue: imports not recognised "
                            + unknown
                            + ", expected imports missing "
                            + missing
                            + "; the engine package changed, update EngineGlue");
        }
        return found;
    }

    private static Import recognise(String body, String memoryVar) {
        if (body.equals(memoryVar)) {
            return Import.MEMORY;
        }
        if (body.contains("callbacks.callFunction")) {
            return Import.HOST_CALL_FUNCTION;
        }
        if (body.contains("callbacks.shouldInterrupt")) {
            return Import.HOST_INTERRUPT;
        }
        if (body.contains("callbacks.loadModuleSource")) {
            return Import.HOST_LOAD_MODULE_SOURCE;
        }
        if (body.contains("callbacks.normalizeModule")) {
            return Import.HOST_NORMALIZE_MODULE;
        }
        if (body.contains("callbacks.freeHostRef")) {
            return Import.HOST_FREE_HOST_REF;
        }
        if (body.contains("Assertion failed")) {
            return Import.ASSERT_FAIL;
        }
        if (body.matches("\\(\\)=>\\w+\\(\"\"\\)")) {
            return Import.ABORT;
        }
        if (body.matches("\\w+")) {
            return Import.PROC_EXIT;
        }
        if (body.contains(".grow(")) {
            return Import.RESIZE_HEAP;
        }
        if (body.contains("setTimeout")) {
            return Import.SETITIMER;
        }
        if (body.contains("padStart")) {
            return Import.TZSET;
        }
        if (body.contains("getSeconds")) {
            return Import.LOCALTIME;
        }
        if (body.contains("performance.now()")) {
            return Import.CLOCK_TIME_GET;
        }
        if (body.equals("()=>Date.now()")) {
            return Import.DATE_NOW;
        }
        if (body.matches("\\(\\)=>\\{\\w+=!1;\\w+=0\\}")) {
            return Import.KEEPALIVE_CLEAR;
        }
        if (body.equals("()=>52")) {
            return Import.FD_CLOSE;
        }
        if (body.equals("function(){return 70}")) {
            return Import.FD_SEEK;
        }
        if (body.contains("for(f of ")) {
            return Import.ENVIRON_GET;
        }
        if (body.contains(".length;a=0;")) {
            return Import.ENVIRON_SIZES_GET;
        }
        return null;
    }

    /** Splits the object literal starting at {@code open} into key to value source. */
    static Map<String, String> objectEntries(String src, int open) {
        Map<String, String> entries = new LinkedHashMap<>();
        int depth = 0;
        int i = open;
        int entryStart = open + 1;
        char quote = 0;
        for (; i < src.length(); i++) {
            char c = src.charAt(i);
            if (quote != 0) {
                if (c == '\\') {
                    i++;
                } else if (c == quote) {
                    quote = 0;
                }
                continue;
            }
            switch (c) {
                case '"', '\'', '`' -> quote = c;
                case '{', '(', '[' -> depth++;
                case '}', ')', ']' -> {
                    depth--;
                    if (depth == 0) {
                        addEntry(entries, src.substring(entryStart, i));
                        return entries;
                    }
                }
                case ',' -> {
                    if (depth == 1) {
                        addEntry(entries, src.substring(entryStart, i));
                        entryStart = i + 1;
                    }
                }
                default -> {}
            }
        }
        throw new IllegalStateException("engine glue: unterminated import object");
    }

    private static void addEntry(Map<String, String> entries, String entry) {
        int colon = entry.indexOf(':');
        if (colon < 0) {
            throw new IllegalStateException("engine glue: malformed import entry " + entry);
        }
        entries.put(entry.substring(0, colon).trim(), entry.substring(colon + 1).trim());
    }

    /** The wasm import module name (one letter in this build). */
    public String importModule() {
        return moduleName;
    }

    /** The field name of one import. */
    public String importName(Import which) {
        return imports.get(which);
    }

    /**
     * The minified export name of a named C function, such as {@code QTS_Eval} or {@code malloc}.
     */
    public String export(String cName) {
        String name = exports.get(cName);
        if (name == null) {
            throw new IllegalStateException(
                    "engine glue: the engine exports no function "
                            + cName
                            + "; the engine package changed");
        }
        return name;
    }

    /** The export that runs the C constructors ({@code __wasm_call_ctors}). */
    public String ctorsExport() {
        return ctorsExport;
    }

    /** All named exports, C name to wasm export name. */
    public Map<String, String> exports() {
        return exports;
    }
}
