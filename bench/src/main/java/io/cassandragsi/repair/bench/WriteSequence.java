package io.cassandragsi.repair.bench;

import java.util.BitSet;
import java.util.SplittableRandom;

/**
 * The writes of a phase, the same for every variant of a round: write {@code i} is a pure function
 * of (seed, i), so a variant that gets further in its phase writes a longer prefix of the same
 * sequence. Keys, indexed values ({@code a}, {@code b}, {@code c}) and values are drawn uniformly:
 * {@code keys} partition keys, {@code indexedValues} distinct values per indexed attribute, and
 * values from a pool of {@value #VALUE_POOL} random ASCII strings of {@code valueBytes} bytes.
 * The tid is not part of the sequence: every write is a new version with a fresh timeuuid. On the
 * unversioned table of the {@code -u} variants, which has no tid, a write of a key written before
 * overwrites its row ({@link KeysWritten} counts those).
 */
final class WriteSequence {
    static final int VALUE_POOL = 1024;

    private final long seed;
    private final String[] keys;
    private final String[] indexed;
    private final String[] values;

    /** One write: the text of each column but the tid. */
    record Write(String key, String a, String b, String c, String value) {
        /** The value of {@code key}, {@code a}, {@code b}, {@code c} or {@code value}. */
        String column(String name) {
            return switch (name) {
                case "key" -> key;
                case "a" -> a;
                case "b" -> b;
                case "c" -> c;
                case "value" -> value;
                default -> throw new IllegalArgumentException("no column " + name);
            };
        }
    }

    WriteSequence(long seed, int keys, int indexedValues, int valueBytes) {
        if (keys < 1 || indexedValues < 1 || valueBytes < 1) {
            throw new IllegalArgumentException("keys, indexed values and value bytes must be positive");
        }
        this.seed = seed;
        this.keys = new String[keys];
        for (int i = 0; i < keys; i++) {
            this.keys[i] = String.format("key-%06d", i);
        }
        this.indexed = new String[indexedValues];
        for (int i = 0; i < indexedValues; i++) {
            this.indexed[i] = String.format("v%05d", i);
        }
        this.values = new String[VALUE_POOL];
        SplittableRandom random = new SplittableRandom(seed);
        char[] chars = new char[valueBytes];
        for (int i = 0; i < VALUE_POOL; i++) {
            for (int j = 0; j < valueBytes; j++) {
                chars[j] = (char) ('!' + random.nextInt(94)); // printable ASCII: one byte each in UTF-8
            }
            this.values[i] = new String(chars);
        }
    }

    /** Write number {@code i} (from 0) of this sequence. */
    Write at(long i) {
        long h = first(i);
        String key = keys[index(h, keys.length)];
        h = mix(h);
        String a = indexed[index(h, indexed.length)];
        h = mix(h);
        String b = indexed[index(h, indexed.length)];
        h = mix(h);
        String c = indexed[index(h, indexed.length)];
        h = mix(h);
        return new Write(key, a, b, c, values[index(h, values.length)]);
    }

    /** The number of write {@code i}'s key, from 0 to {@code keys} - 1 (the same key number is the same key in every sequence). */
    int keyIndex(long i) {
        return index(first(i), keys.length);
    }

    private long first(long i) {
        return mix(seed ^ mix(i + 0x9E3779B97F4A7C15L));
    }

    /**
     * The keys that earlier writes of a run sent to one table, across phases: counts the writes
     * that overwrite an existing row of the unversioned table.
     */
    static final class KeysWritten {
        private final BitSet written = new BitSet();

        /** Records writes 0 to {@code issued} - 1 of {@code sequence}; returns how many wrote a key written before. */
        long record(WriteSequence sequence, long issued) {
            long overwrites = 0;
            for (long i = 0; i < issued; i++) {
                int k = sequence.keyIndex(i);
                if (written.get(k)) {
                    overwrites++;
                } else {
                    written.set(k);
                }
            }
            return overwrites;
        }
    }

    private static int index(long hash, int n) {
        return (int) Long.remainderUnsigned(hash, n);
    }

    /** SplitMix64's finalizer: a bijection that spreads every input bit over the output. */
    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
