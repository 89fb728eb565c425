package io.cassandragsi.repair.read;

import io.cassandragsi.index.Sha256;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.UUID;
import java.util.function.Function;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The opaque {@code next} token: where the previous page stopped (the driver's paging state of
 * the index-table page it was reading, how many rows of that page it had consumed, and an
 * identity of the last of them, so that a page resumed after rows were inserted before it starts
 * behind that row, not a count of rows further) and the
 * read's query time (so that a read without {@code as_of} keeps the first page's moment), bound to
 * the query it came from (a fingerprint of keyspace, table, index, values, bounds, consistency
 * and query time) and signed with HMAC-SHA256, so a token that was altered or belongs to another
 * query is rejected with 400 instead of returning wrong pages.
 */
final class PageToken {
    private static final byte VERSION = 4;
    /** The seal of a token that pages through an index table, not a bucket. */
    private static final UUID NO_SEAL = new UUID(0, 0);
    /** Bytes of a row identity ({@link #rowId}). */
    static final int ROW_ID_BYTES = 16;
    /** One initialized MAC per thread: looking the algorithm up and keying it cost more than signing a token. */
    private final ThreadLocal<Mac> macs;

    /**
     * {@code lastRow}: the {@link #rowId} of the last row consumed, or null when {@code offset} is 0;
     * {@code seal}: the seal of the bucket the read pages through (docs/design.md section 8.5), or
     * null: the index table. A window read that merges buckets (section 8.2) has no driver paging
     * state: its {@code pagingState} is the clustering key its next page starts behind ({@code
     * schema.Composite}), and its {@code seal} a digest of its buckets' seals ({@code BucketMerge.seals}).
     */
    record Position(byte[] fingerprint, UUID queryTime, byte[] pagingState, int offset, byte[] lastRow, UUID seal) {
        Position(byte[] fingerprint, UUID queryTime, byte[] pagingState, int offset, byte[] lastRow) {
            this(fingerprint, queryTime, pagingState, offset, lastRow, null);
        }

        Position(byte[] fingerprint, UUID queryTime, byte[] pagingState, int offset) {
            this(fingerprint, queryTime, pagingState, offset, null, null);
        }
    }

    /** A short identity of an index row: a digest of its key columns. */
    static byte[] rowId(java.util.List<java.nio.ByteBuffer> key) {
        MessageDigest d = Sha256.digest();
        key.forEach(k -> Sha256.part(d, k));
        return java.util.Arrays.copyOf(d.digest(), ROW_ID_BYTES);
    }

    PageToken(byte[] key) {
        SecretKeySpec spec = new SecretKeySpec(key.clone(), "HmacSHA256");
        this.macs = ThreadLocal.withInitial(() -> {
            try {
                Mac mac = Mac.getInstance("HmacSHA256");
                mac.init(spec);
                return mac;
            } catch (GeneralSecurityException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    static PageToken randomKey() {
        byte[] k = new byte[32];
        new SecureRandom().nextBytes(k);
        return new PageToken(k);
    }

    static byte[] fingerprint(String canonicalQuery) {
        return Sha256.digest().digest(canonicalQuery.getBytes(StandardCharsets.UTF_8));
    }

    String encode(Position p) {
        byte[] state = p.pagingState() == null ? new byte[0] : p.pagingState();
        byte[] lastRow = p.lastRow() == null ? new byte[ROW_ID_BYTES] : p.lastRow();
        ByteBuffer b = ByteBuffer.allocate(1 + 32 + 16 + 16 + 4 + ROW_ID_BYTES + 4 + state.length + 32);
        b.put(VERSION).put(p.fingerprint()).putLong(p.queryTime().getMostSignificantBits()).putLong(p.queryTime().getLeastSignificantBits());
        UUID seal = p.seal() == null ? NO_SEAL : p.seal();
        b.putLong(seal.getMostSignificantBits()).putLong(seal.getLeastSignificantBits())
                .putInt(p.offset()).put(lastRow, 0, ROW_ID_BYTES).putInt(state.length).put(state);
        b.put(mac(b.array(), b.position()));
        return Base64.getUrlEncoder().withoutPadding().encodeToString(b.array());
    }

    /**
     * The position a token holds, once its signature is checked and it belongs to the query:
     * {@code expectedFingerprint} gives the query's fingerprint at the token's query time.
     */
    Position decode(String token, Function<UUID, byte[]> expectedFingerprint) {
        byte[] raw;
        try {
            raw = Base64.getUrlDecoder().decode(token);
        } catch (IllegalArgumentException e) {
            throw ReadException.badRequest("bad_next", "'next' is not a token this service issued");
        }
        if (raw.length < 1 + 32 + 16 + 16 + 8 + ROW_ID_BYTES + 32 || raw[0] != VERSION) {
            throw ReadException.badRequest("bad_next", "'next' is not a token this service issued");
        }
        int bodyLength = raw.length - 32;
        byte[] sig = java.util.Arrays.copyOfRange(raw, bodyLength, raw.length);
        if (!MessageDigest.isEqual(sig, mac(raw, bodyLength))) {
            throw ReadException.badRequest("bad_next", "'next' was altered, or was issued by another service instance");
        }
        ByteBuffer b = ByteBuffer.wrap(raw, 1, bodyLength - 1);
        byte[] fp = new byte[32];
        b.get(fp);
        UUID queryTime = new UUID(b.getLong(), b.getLong());
        if (!MessageDigest.isEqual(fp, expectedFingerprint.apply(queryTime))) {
            throw ReadException.badRequest("bad_next", "'next' belongs to another query (path, bounds, consistent or as_of differ)");
        }
        UUID seal = new UUID(b.getLong(), b.getLong());
        int offset = b.getInt();
        byte[] lastRow = new byte[ROW_ID_BYTES];
        b.get(lastRow);
        int len = b.getInt();
        if (len < 0 || len != b.remaining() || offset < 0) {
            throw ReadException.badRequest("bad_next", "'next' is malformed");
        }
        byte[] state = new byte[len];
        b.get(state);
        return new Position(fp, queryTime, len == 0 ? null : state, offset, offset == 0 ? null : lastRow, NO_SEAL.equals(seal) ? null : seal);
    }

    private byte[] mac(byte[] data, int length) {
        Mac mac = macs.get();
        mac.update(data, 0, length); // doFinal leaves it reset for the next token
        return mac.doFinal();
    }
}
