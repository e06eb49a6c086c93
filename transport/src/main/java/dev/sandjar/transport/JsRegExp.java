package dev.sandjar.transport;

/** A JavaScript {@code RegExp}: its source and flags, exactly as the guest wrote them. */
public record JsRegExp(String source, String flags) {}
