package dev.sandjar.outline;

/**
 * A small interpreter-shaped method for the pass's tests: a loop around a switch whose arms use
 * long and double locals, leave by two different edges (continue and break) and return from inside.
 */
final class Synthetic {
    private Synthetic() {}

    static long run(int steps, long seed, double scale) {
        long acc = seed;
        double f = scale;
        int i = 0;
        long out = 0;
        outer:
        while (i < steps) {
            int op = (int) ((acc ^ (acc >>> 7)) & 7);
            switch (op) {
                case 0:
                    acc = acc * 6364136223846793005L + 1442695040888963407L;
                    f = f * 1.5 + (acc & 0xff) / 256.0;
                    i++;
                    continue;
                case 1:
                    if ((acc & 0x300) == 0x300) {
                        out = acc + (long) (f * 1000.0) + i;
                        return out ^ 0x5a5a;
                    }
                    acc += (long) Math.floor(f * 17.0) + 3;
                    f = f / 3.0 + 0.25;
                    i += 2;
                    break;
                case 2:
                    if (f > 1e6) {
                        f = Math.sqrt(f) + (acc % 11);
                        acc = acc * 31 + 7;
                        i++;
                        break outer;
                    }
                    acc ^= Double.doubleToLongBits(f) >>> 13;
                    i++;
                    break;
                case 3:
                    long t = acc;
                    for (int k = 0; k < 5; k++) {
                        t = (t << 3) ^ (t >>> 5) ^ k;
                    }
                    acc = t + i;
                    out += t & 0xffff;
                    i++;
                    continue;
                default:
                    acc = acc * 2862933555777941757L + 3037000493L;
                    f += 0.125;
                    i++;
                    break;
            }
            out += acc & 0xf;
        }
        return acc + out + (long) f;
    }
}
