package dev.sandjar.bridges.media;

import java.util.Locale;

/** What a media ref or handle holds; the guest spells it in lower case ({@code "image"}). */
public enum MediaType {
    IMAGE,
    AUDIO,
    VIDEO,
    DOCUMENT;

    /** The guest's spelling: {@code image}, {@code audio}, {@code video}, {@code document}. */
    public String guestName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The type the guest spelled, or null when {@code name} is not one. */
    public static MediaType fromGuest(String name) {
        for (MediaType t : values()) {
            if (t.guestName().equals(name)) {
                return t;
            }
        }
        return null;
    }
}
