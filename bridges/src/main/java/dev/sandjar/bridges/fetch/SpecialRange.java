package dev.sandjar.bridges.fetch;

/**
 * One row of the special-purpose address table: a CIDR block, the registry's name for it, and the
 * document that reserves it.
 */
record SpecialRange(String cidr, String name, String rfc) {
    @Override
    public String toString() {
        return cidr + " (" + name + ", " + rfc + ")";
    }
}
