package dev.sandjar.quickjs;

/**
 * Built-in objects a context may be created with ({@code QTS_NewContext} flags). A context made
 * with a subset lacks the rest entirely, for example no {@code eval} without {@link #EVAL}.
 */
public enum Intrinsic {
    BASE_OBJECTS(1),
    DATE(1 << 1),
    EVAL(1 << 2),
    REGEXP(1 << 4),
    REGEXP_COMPILER(1 << 5),
    JSON(1 << 6),
    PROXY(1 << 7),
    MAP_SET(1 << 8),
    TYPED_ARRAYS(1 << 9),
    PROMISE(1 << 10),
    BIGINT(1 << 11);

    final int flag;

    Intrinsic(int flag) {
        this.flag = flag;
    }
}
