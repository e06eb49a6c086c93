package dev.sandjar.packs;

import java.util.Map;
import java.util.Set;

/**
 * A catalog's trust settings, fixed when it is built: packs trusted by name, capability globals
 * granted per pack, and the globals withheld from the rest. Shipped packs and packs of trusted
 * search paths are trusted whatever this says.
 */
record TrustPolicy(
        Set<String> trustedPacks, Map<String, Set<String>> grants, Set<String> withheld) {
    TrustPolicy {
        trustedPacks = Set.copyOf(trustedPacks);
        grants = Map.copyOf(grants);
        withheld = Set.copyOf(withheld);
    }

    /** What {@code pack}, untrusted, must not see: the withheld globals less its grants. */
    Set<String> withheldFrom(String pack) {
        Set<String> granted = grants.getOrDefault(pack, Set.of());
        java.util.SortedSet<String> out = new java.util.TreeSet<>(withheld);
        out.removeAll(granted);
        return java.util.Collections.unmodifiableSortedSet(out);
    }
}
