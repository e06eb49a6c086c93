package dev.sandjar.outline;

/** A method for the size step's profile test ({@link SizeSplitTest}), in a class of its own. */
final class HeatSynthetic {
    private HeatSynthetic() {}

    /**
     * A loop with one large hot arm and a smaller cold part (four arms, taken once in 1,024
     * iterations): moved by size, the hot arm goes first and every iteration becomes a call; with a
     * size profile the cold part goes instead.
     */
    static long hotCold(int n, long seed) {
        long acc = seed;
        long x = 1;
        long y = 7;
        int k = 0;
        for (int i = 0; i < n; i++) {
            if ((i & 1023) != 1023) {
                acc = acc * 6364136223846793005L + 1442695040888963407L;
                x ^= acc >>> 7;
                x += (acc << 3) ^ i;
                x = Long.rotateLeft(x, 5) ^ y;
                y += x * 31 + (acc >>> 17);
                y ^= y >>> 13;
                x -= y * 0x9E3779B97F4A7C15L;
                acc ^= x + (y << 9);
                x = Long.rotateRight(x, 11) + i * 3L;
                y = y * 0x2545F4914F6CDD1DL + (x >>> 3);
                acc += (x ^ y) >>> 21;
                x ^= Long.rotateLeft(acc, 17) - y;
                y -= Long.rotateRight(x, 29) ^ acc;
                acc = acc * 0x5851F42D4C957F2DL + (x & 0xFFFF);
                x += (y >>> 31) ^ (acc << 7);
                y ^= (x + acc) * 0xD6E8FEB86659FD93L;
                acc -= Long.rotateLeft(y, 23) ^ (x >>> 5);
                x = x * 0xBF58476D1CE4E5B9L + i;
                y = (y ^ (y >>> 30)) * 0x94D049BB133111EBL;
                acc ^= (x ^ (x >>> 27)) + (y ^ (y >>> 31));
                x += Long.rotateLeft(acc ^ y, 9) * 0x9FB21C651E98DF25L;
                y ^= (x >>> 28) + (acc << 13) + i;
                acc = Long.rotateRight(acc + x, 37) ^ (y * 0xC2B2AE3D27D4EB4FL);
                x -= (acc >>> 19) ^ Long.rotateLeft(y, 41);
                y += (x ^ acc) * 0x165667B19E3779F9L;
                acc ^= Long.rotateLeft(x, 27) + (y >>> 3);
                x = (x ^ (y << 17)) * 0x27D4EB2F165667C5L;
                y = Long.rotateRight(y - acc, 13) ^ x;
                acc += (x * 0x85EBCA77C2B2AE63L) ^ (y >>> 33);
                x ^= (acc + y) >>> 29;
            } else {
                switch ((int) (acc & 3)) {
                    case 0:
                        k += (int) (acc >>> 40) & 7;
                        x ^= Long.rotateLeft(acc, 3) + k;
                        y += x ^ (acc >>> 9) ^ k;
                        acc = acc * 31 + y;
                        x -= (y << 2) ^ k;
                        break;
                    case 1:
                        k ^= (int) (x >>> 33);
                        y ^= Long.rotateRight(x, 7) + k;
                        x += y * 5 ^ (acc >>> 3);
                        acc -= x ^ (y << 11) ^ k;
                        y += (acc >>> 2) ^ k;
                        break;
                    case 2:
                        k -= (int) (y >>> 20) | 1;
                        acc ^= Long.rotateLeft(y, 13) - k;
                        x = x * 3 + (acc ^ y) + k;
                        y -= (x >>> 6) ^ (acc << 4);
                        acc += y ^ k;
                        break;
                    default:
                        k += (int) (acc ^ x ^ y) & 255;
                        y = Long.rotateLeft(y ^ acc, 19) + k;
                        x ^= (y * 9) + (acc >>> 1);
                        acc = (acc ^ x) * 7 + k;
                        x += (acc >>> 8) ^ (y << 1);
                        break;
                }
            }
        }
        return acc ^ x ^ y ^ k;
    }
}
