package dev.sandjar.quickjs;

/** Decodes one JSON string literal, as {@code JSON.stringify} of a string produces it. */
final class JsonString {
    private JsonString() {}

    static String decode(String literal) {
        if (literal.length() < 2
                || literal.charAt(0) != '"'
                || literal.charAt(literal.length() - 1) != '"') {
            throw new IllegalArgumentException("not a JSON string literal");
        }
        StringBuilder b = new StringBuilder(literal.length());
        for (int i = 1; i < literal.length() - 1; i++) {
            char c = literal.charAt(i);
            if (c != '\\') {
                b.append(c);
                continue;
            }
            char e = literal.charAt(++i);
            switch (e) {
                case '"', '\\', '/' -> b.append(e);
                case 'b' -> b.append('\b');
                case 'f' -> b.append('\f');
                case 'n' -> b.append('\n');
                case 'r' -> b.append('\r');
                case 't' -> b.append('\t');
                case 'u' -> {
                    b.append((char) Integer.parseInt(literal.substring(i + 1, i + 5), 16));
                    i += 4;
                }
                default -> throw new IllegalArgumentException("bad JSON escape \\" + e);
            }
        }
        return b.toString();
    }
}
