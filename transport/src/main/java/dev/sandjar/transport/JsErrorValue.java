package dev.sandjar.transport;

/** A JavaScript {@code Error} carried as a value: name, message and stack. */
public record JsErrorValue(String name, String message, String stack) {}
