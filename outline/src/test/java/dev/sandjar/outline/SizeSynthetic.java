package dev.sandjar.outline;

import com.dylibso.chicory.runtime.Memory;

/** Methods for the size step's tests ({@link SizeSplitTest}), each over a small limit. */
final class SizeSynthetic {
    private SizeSynthetic() {}

    /**
     * An interpreter-shaped loop whose arms are small (several of them move together, behind an
     * entry switch), write locals live after them and return from inside; the memory parameter
     * makes the results come back in the memory's shared scratch array, and the pieces the
     * outlining step makes of it are split again. Not yet reproduced here: a region of a piece that
     * holds the piece's own result stores for an exit only it takes, moved alone (the engine's case
     * that made constant returns bypass the scratch array); the outlining step moves this whole
     * loop as one piece, so every exit of it is shared by several arms.
     */
    static long loop(Memory mem, int steps, long seed) {
        long acc = seed;
        long out = 1;
        int i = 0;
        int j = 3;
        double f = 0.5;
        long a1 = 1;
        long a2 = 2;
        long a3 = 3;
        long a4 = 4;
        outer:
        while (i < steps) {
            int op = (int) ((acc ^ (acc >>> 11)) & 15);
            switch (op) {
                case 0:
                    acc = acc * 6364136223846793005L + 1442695040888963407L;
                    j += 3;
                    i++;
                    continue;
                case 1:
                    if ((acc & 0x700) == 0x700 && i > 20) {
                        return acc + out + j + (long) f;
                    }
                    acc += j * 7L + 3;
                    f = f * 1.25 + 1;
                    i += 2;
                    break;
                case 2:
                    out ^= acc >>> 5;
                    j = (int) (out & 63);
                    a1 += j;
                    i++;
                    break;
                case 3:
                    for (int k = 0; k < 4; k++) {
                        acc = (acc << 3) ^ (acc >>> 5) ^ k ^ j;
                    }
                    i++;
                    continue;
                case 4:
                    f = Math.sqrt(f + acc % 1000) + j;
                    out += (long) f;
                    a2 ^= out;
                    i++;
                    break;
                case 5:
                    j = j * 3 + (int) (acc & 7);
                    out = out * 31 + j;
                    a3 = a3 * 3 + i;
                    i += 1;
                    break;
                case 6:
                    if (f > 1e9) {
                        return out - acc;
                    }
                    f = f * 3 + j;
                    acc ^= Double.doubleToLongBits(f) >>> 7;
                    i++;
                    break;
                case 7:
                    acc = Long.rotateLeft(acc, j & 31) + i;
                    out -= acc & 0xff;
                    i++;
                    continue;
                case 8:
                    // the memory is used in the loop, so the pieces take it too
                    out += nested(acc, j, i) + probe(mem);
                    acc += out;
                    i++;
                    break;
                case 9:
                    j ^= i;
                    acc = acc * 2862933555777941757L + 3037000493L;
                    out += j;
                    a4 -= acc >>> 40;
                    i++;
                    break;
                case 10:
                    // the only way out of the loop but its condition: in a piece made of the
                    // switch, the piece's own result stores for it sit in this case's region
                    if ((acc & 0x30) == 0x30 && i > 30) {
                        out += (acc >>> 3) * 77 + (long) (f * 3.5);
                        j = (int) ((out ^ acc) & 0x7fff) + i;
                        f = f / 2 + Math.floor(f * 1.5) - j;
                        acc ^= Double.doubleToLongBits(f) >>> 9;
                        break outer;
                    }
                    acc = acc * 6364136223846793005L + j;
                    i++;
                    break;
                default:
                    acc = acc * 2862933555777941757L + 3037000493L;
                    f += 0.125;
                    i++;
                    break;
            }
            out += acc & 0xf;
            j = (j + 1) & 0xffff;
        }
        return acc * 3 + out * 5 + j * 7L + (long) f + a1 * 11 + a2 * 13 + a3 * 17 + a4 * 19;
    }

    private static int probe(Memory mem) {
        return mem instanceof dev.sandjar.quickjs.internal.BlockMemory ? 1 : 2;
    }

    private static long nested(long a, int b, int c) {
        return a % 97 + b * 3L - c;
    }
}
