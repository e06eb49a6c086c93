package dev.sandjar.host.script;

import dev.sandjar.host.EngineException;
import dev.sandjar.host.RunResult;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;
import javax.script.CompiledScript;
import javax.script.Invocable;
import javax.script.ScriptContext;
import javax.script.ScriptException;

/**
 * Code that parsed, from {@link SandjarScriptEngine#compile(String)}. Each eval is a fresh run of
 * the same code (nothing is kept from one eval to the next); only the parse happened up front.
 * Thread-safe.
 *
 * <p>It is {@link Invocable} with fresh-run semantics: {@link #invokeFunction} runs the script's
 * body, then calls the function of that name defined at its top level (a declaration, or a {@code
 * const}/{@code let}/{@code var} holding a function) with the arguments, in the same run, and
 * returns what it returns (awaited when it is a promise). The body's side effects therefore happen
 * on every call. The arguments cross as the bindings do, as the run's global {@value
 * SandjarScriptEngine#INVOKE_GLOBAL}, and the engine's default context supplies the bindings. A
 * body that returns at the top level ends the run before the call, and the call fails; so does a
 * module (code with a top-level {@code export}): it runs as written, with no body to follow.
 *
 * <p>{@link #getInterface(Class)} returns a proxy whose every method is such an invocation, after
 * one run that checks the script defines each of the interface's abstract methods as a function.
 * {@link #invokeMethod} and {@link #getInterface(Object, Class)} need a script object that outlives
 * a run, which Sandjar never has: they throw {@link IllegalArgumentException} for every object.
 */
public final class SandjarCompiledScript extends CompiledScript implements Invocable {
    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_$][A-Za-z0-9_$]*");

    /** Names that are valid Java method names but cannot be referenced as JS identifiers. */
    private static final Set<String> JS_RESERVED =
            Set.of(
                    "arguments",
                    "await",
                    "debugger",
                    "delete",
                    "eval",
                    "export",
                    "function",
                    "in",
                    "let",
                    "typeof",
                    "var",
                    "with",
                    "yield");

    /** The key of the object the code after the body returns, telling it from the body's own. */
    private static final String OUTCOME = "$sandjarOutcome";

    private final SandjarScriptEngine engine;
    private final String code;
    private final boolean module;

    SandjarCompiledScript(SandjarScriptEngine engine, String code, boolean module) {
        this.engine = engine;
        this.code = code;
        this.module = module;
    }

    @Override
    public Object eval(ScriptContext context) throws ScriptException {
        Objects.requireNonNull(context, "context");
        return SandjarScriptEngine.toJava(engine.run(code, context, null).value());
    }

    @Override
    public SandjarScriptEngine getEngine() {
        return engine;
    }

    /**
     * Runs the body, then calls its top-level function {@code name} with {@code args}.
     *
     * @throws NoSuchMethodException when the script defines no function of that name
     * @throws ScriptException when the run fails (a {@link SandjarScriptException}), an argument
     *     cannot cross, the body returned before the call, or the script is a module
     */
    @Override
    public Object invokeFunction(String name, Object... args)
            throws ScriptException, NoSuchMethodException {
        Objects.requireNonNull(name, "name");
        if (!isReferenceable(name)) {
            throw new NoSuchMethodException(
                    "'" + name + "' is not a JavaScript identifier a script can define");
        }
        Map<?, ?> outcome =
                call(
                        "typeof "
                                + name
                                + " !== \"function\" ? {$sandjarOutcome: \"missing\"} :"
                                + " {$sandjarOutcome: \"called\", value: await "
                                + name
                                + "(..."
                                + SandjarScriptEngine.INVOKE_GLOBAL
                                + ")}",
                        args == null ? List.of() : Arrays.asList(args),
                        name);
        if ("missing".equals(outcome.get(OUTCOME))) {
            throw new NoSuchMethodException(
                    "the script defines no function '" + name + "' at its top level");
        }
        return SandjarScriptEngine.toJava(outcome.get("value"));
    }

    /** Always refused: no script object outlives the run that made it. */
    @Override
    public Object invokeMethod(Object thiz, String name, Object... args) {
        throw new IllegalArgumentException(
                "invokeMethod needs a script object, and no Sandjar script object outlives the"
                        + " run that made it (values come out as Java copies); use"
                        + " invokeFunction");
    }

    /**
     * A proxy calling {@link #invokeFunction} for each abstract method of {@code type} (a fresh run
     * per call); null when the script does not define each of them as a top-level function, which
     * is checked with one run of the body. Default methods run their Java code. A method's return
     * value is converted for numeric, {@code boolean} and {@code void} return types; a {@link
     * ScriptException} reaches the caller wrapped in {@link
     * java.lang.reflect.UndeclaredThrowableException} unless the method declares it.
     */
    @Override
    public <T> T getInterface(Class<T> type) {
        Objects.requireNonNull(type, "type");
        if (!type.isInterface()) {
            throw new IllegalArgumentException(type.getName() + " is not an interface");
        }
        Set<String> names = new LinkedHashSet<>();
        for (Method m : type.getMethods()) {
            if (Modifier.isAbstract(m.getModifiers()) && !isObjectMethod(m)) {
                names.add(m.getName());
            }
        }
        if (!names.stream().allMatch(SandjarCompiledScript::isReferenceable)) {
            return null;
        }
        List<String> checks = new ArrayList<>();
        for (String n : names) {
            checks.add(n + ": typeof " + n + " === \"function\"");
        }
        Map<?, ?> outcome;
        try {
            outcome =
                    call(
                            "{$sandjarOutcome: \"checked\", defined: {"
                                    + String.join(", ", checks)
                                    + "}}",
                            List.of(),
                            null);
        } catch (ScriptException e) {
            throw new EngineException(
                    "checking the script for " + type.getName() + " failed: " + e.getMessage(), e);
        }
        if (!(outcome.get("defined") instanceof Map<?, ?> defined)
                || !defined.values().stream().allMatch(Boolean.TRUE::equals)) {
            return null;
        }
        InvocationHandler handler =
                (proxy, method, args) -> {
                    if (isObjectMethod(method)) {
                        return switch (method.getName()) {
                            case "equals" -> proxy == args[0];
                            case "hashCode" -> System.identityHashCode(proxy);
                            default -> "Sandjar script implementing " + type.getName();
                        };
                    }
                    if (method.isDefault()) {
                        return InvocationHandler.invokeDefault(proxy, method, args);
                    }
                    return convert(invokeFunction(method.getName(), args), method.getReturnType());
                };
        return type.cast(
                Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, handler));
    }

    /** Always refused, as {@link #invokeMethod}. */
    @Override
    public <T> T getInterface(Object thiz, Class<T> type) {
        throw new IllegalArgumentException(
                "getInterface(thiz, type) needs a script object, and no Sandjar script object"
                        + " outlives the run that made it; use getInterface(type)");
    }

    /**
     * Runs the body followed by {@code return <outcome>;}, where the outcome is an object with a
     * {@value #OUTCOME} key; refuses a module and detects a body that returned first.
     */
    private Map<?, ?> call(String outcome, List<Object> args, String name) throws ScriptException {
        String what = name == null ? "check its functions" : "call '" + name + "'";
        if (module) {
            throw new ScriptException(
                    "cannot "
                            + what
                            + ": the script has a top-level export, so it runs as a module and its"
                            + " functions are not reachable after its body");
        }
        // The body keeps its own lines and columns; the call comes after it, on a line of its own
        // (after a line comment or a statement without a semicolon, too).
        String invocation = code + "\n;return " + outcome + ";\n";
        RunResult result = engine.run(invocation, engine.getContext(), args);
        if (result.value() instanceof Map<?, ?> map && map.get(OUTCOME) instanceof String) {
            return map;
        }
        throw new ScriptException(
                "cannot "
                        + what
                        + ": the script's body returned at the top level before the call could"
                        + " be made");
    }

    private static boolean isReferenceable(String name) {
        return IDENTIFIER.matcher(name).matches() && !JS_RESERVED.contains(name);
    }

    private static boolean isObjectMethod(Method m) {
        return switch (m.getName()) {
            case "equals" -> m.getParameterCount() == 1 && m.getParameterTypes()[0] == Object.class;
            case "hashCode", "toString" -> m.getParameterCount() == 0;
            default -> false;
        };
    }

    /** JavaScript numbers arrive as Long or Double; the interface may declare any number type. */
    private static Object convert(Object value, Class<?> type) {
        if (type == void.class) {
            return null;
        }
        if (value instanceof Number n) {
            if (type == int.class || type == Integer.class) {
                return n.intValue();
            }
            if (type == long.class || type == Long.class) {
                return n.longValue();
            }
            if (type == double.class || type == Double.class) {
                return n.doubleValue();
            }
            if (type == float.class || type == Float.class) {
                return n.floatValue();
            }
            if (type == short.class || type == Short.class) {
                return n.shortValue();
            }
            if (type == byte.class || type == Byte.class) {
                return n.byteValue();
            }
        }
        return value;
    }
}
