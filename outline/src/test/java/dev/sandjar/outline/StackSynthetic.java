package dev.sandjar.outline;

/** A method for the size step's tests ({@link SizeSplitTest}) whose operand stack is carried. */
final class StackSynthetic {
    private StackSynthetic() {}

    /**
     * One expression whose running sum stays on the operand stack across every conditional: no
     * block after the first join starts on an empty stack, so nothing can move until the carried
     * values are spilled into locals.
     */
    static long chain(long a, int b) {
        long x = a ^ (a >>> 29);
        return x * 3
                + ((b & 1) != 0 ? (x ^ 0x55) * 1 : (x + 7) + 0)
                + ((b & 2) != 0 ? (x * 5) * 2 : (x - 11) + 1)
                + ((b & 4) != 0 ? (x >>> 3) * 3 : (x << 2) + 2)
                + ((b & 8) != 0 ? (x % 1009) * 4 : (x / 7) + 3)
                + ((b & 16) != 0 ? (x ^ (x << 13)) * 5 : (x | 0x70) + 4)
                + ((b & 32) != 0 ? (x - (b * 17L)) * 6 : (x + (b * 31L)) + 5)
                + ((b & 64) != 0
                        ? (Long.rotateLeft(x, b & 31)) * 7
                        : (Long.rotateRight(x, b & 15)) + 6)
                + ((b & 128) != 0 ? (x * x) * 8 : (x + x) + 7)
                + ((b & 256) != 0 ? ((x & 0xffff) * 77) * 9 : ((x >> 7) * 5) + 8)
                + ((b & 512) != 0 ? (x ^ 0x123456789L) * 10 : (x + 0x9abcdefL) + 9)
                + ((b & 1024) != 0 ? (((x & 1) != 0 ? x + 1 : x - 1)) * 11 : (x * 9) + 10)
                + ((b & 2048) != 0 ? (Math.max(x, b)) * 12 : (Math.min(x, -b)) + 11)
                + ((b & 4096) != 0 ? (x / 3 + b) * 13 : (x % 5 - b) + 12)
                + ((b & 8192) != 0 ? (x ^ (x >>> 31)) * 14 : (x ^ (x >>> 17)) + 13)
                + ((b & 1) != 0 ? (x ^ 0x55) * 15 : (x + 7) + 14)
                + ((b & 2) != 0 ? (x * 5) * 16 : (x - 11) + 15)
                + ((b & 4) != 0 ? (x >>> 3) * 17 : (x << 2) + 16)
                + ((b & 8) != 0 ? (x % 1009) * 18 : (x / 7) + 17)
                + ((b & 16) != 0 ? (x ^ (x << 13)) * 19 : (x | 0x70) + 18)
                + ((b & 32) != 0 ? (x - (b * 17L)) * 20 : (x + (b * 31L)) + 19)
                + ((b & 64) != 0
                        ? (Long.rotateLeft(x, b & 31)) * 21
                        : (Long.rotateRight(x, b & 15)) + 20)
                + ((b & 128) != 0 ? (x * x) * 22 : (x + x) + 21)
                + ((b & 256) != 0 ? ((x & 0xffff) * 77) * 23 : ((x >> 7) * 5) + 22)
                + ((b & 512) != 0 ? (x ^ 0x123456789L) * 24 : (x + 0x9abcdefL) + 23)
                + ((b & 1024) != 0 ? (((x & 1) != 0 ? x + 1 : x - 1)) * 25 : (x * 9) + 24)
                + ((b & 2048) != 0 ? (Math.max(x, b)) * 26 : (Math.min(x, -b)) + 25)
                + ((b & 4096) != 0 ? (x / 3 + b) * 27 : (x % 5 - b) + 26)
                + ((b & 8192) != 0 ? (x ^ (x >>> 31)) * 28 : (x ^ (x >>> 17)) + 27)
                + ((b & 1) != 0 ? (x ^ 0x55) * 29 : (x + 7) + 28)
                + ((b & 2) != 0 ? (x * 5) * 30 : (x - 11) + 29)
                + ((b & 4) != 0 ? (x >>> 3) * 31 : (x << 2) + 30)
                + ((b & 8) != 0 ? (x % 1009) * 32 : (x / 7) + 31)
                + ((b & 16) != 0 ? (x ^ (x << 13)) * 33 : (x | 0x70) + 32)
                + ((b & 32) != 0 ? (x - (b * 17L)) * 34 : (x + (b * 31L)) + 33)
                + ((b & 64) != 0
                        ? (Long.rotateLeft(x, b & 31)) * 35
                        : (Long.rotateRight(x, b & 15)) + 34)
                + ((b & 128) != 0 ? (x * x) * 36 : (x + x) + 35)
                + ((b & 256) != 0 ? ((x & 0xffff) * 77) * 37 : ((x >> 7) * 5) + 36)
                + ((b & 512) != 0 ? (x ^ 0x123456789L) * 38 : (x + 0x9abcdefL) + 37)
                + ((b & 1024) != 0 ? (((x & 1) != 0 ? x + 1 : x - 1)) * 39 : (x * 9) + 38)
                + ((b & 2048) != 0 ? (Math.max(x, b)) * 40 : (Math.min(x, -b)) + 39)
                + ((b & 4096) != 0 ? (x / 3 + b) * 41 : (x % 5 - b) + 40)
                + ((b & 8192) != 0 ? (x ^ (x >>> 31)) * 42 : (x ^ (x >>> 17)) + 41)
                + ((b & 1) != 0 ? (x ^ 0x55) * 43 : (x + 7) + 42)
                + ((b & 2) != 0 ? (x * 5) * 44 : (x - 11) + 43)
                + ((b & 4) != 0 ? (x >>> 3) * 45 : (x << 2) + 44)
                + ((b & 8) != 0 ? (x % 1009) * 46 : (x / 7) + 45)
                + ((b & 16) != 0 ? (x ^ (x << 13)) * 47 : (x | 0x70) + 46)
                + ((b & 32) != 0 ? (x - (b * 17L)) * 48 : (x + (b * 31L)) + 47)
                + ((b & 64) != 0
                        ? (Long.rotateLeft(x, b & 31)) * 49
                        : (Long.rotateRight(x, b & 15)) + 48)
                + ((b & 128) != 0 ? (x * x) * 50 : (x + x) + 49)
                + ((b & 256) != 0 ? ((x & 0xffff) * 77) * 51 : ((x >> 7) * 5) + 50)
                + ((b & 512) != 0 ? (x ^ 0x123456789L) * 52 : (x + 0x9abcdefL) + 51)
                + ((b & 1024) != 0 ? (((x & 1) != 0 ? x + 1 : x - 1)) * 53 : (x * 9) + 52)
                + ((b & 2048) != 0 ? (Math.max(x, b)) * 54 : (Math.min(x, -b)) + 53)
                + ((b & 4096) != 0 ? (x / 3 + b) * 55 : (x % 5 - b) + 54)
                + ((b & 8192) != 0 ? (x ^ (x >>> 31)) * 56 : (x ^ (x >>> 17)) + 55);
    }
}
