package io.cassandragsi.index;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * SHA-256 over values as the project hashes them: one digest per thread (looking the algorithm up
 * for every read costs more than hashing), and each value length-prefixed, 4 bytes big-endian, a
 * null as length -1, so that no two lists of values hash alike by concatenation. Page tokens'
 * row ids and fingerprints (docs/design.md section 8.3) and the check's bucket digests (section
 * 9.2) hash with it.
 */
public final class Sha256 {
    private static final ThreadLocal<MessageDigest> DIGEST = ThreadLocal.withInitial(() -> {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
    });

    private Sha256() {}

    /** This thread's digest, reset. */
    public static MessageDigest digest() {
        MessageDigest d = DIGEST.get();
        d.reset();
        return d;
    }

    /** Adds {@code value} (null allowed) with its length before it. */
    public static void part(MessageDigest d, ByteBuffer value) {
        if (value == null) {
            length(d, -1);
            return;
        }
        length(d, value.remaining());
        d.update(value.duplicate());
    }

    /** Adds a length (or a count), 4 bytes big-endian. */
    public static void length(MessageDigest d, int n) {
        d.update(new byte[] {(byte) (n >>> 24), (byte) (n >>> 16), (byte) (n >>> 8), (byte) n});
    }
}
