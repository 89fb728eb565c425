package io.cassandragsi.repair.read;

import io.cassandragsi.index.Sha256;
import io.cassandragsi.schema.Composite;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.List;
import java.util.UUID;
import java.util.function.Function;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The opaque {@code next} token (docs/design.md section 8.5): the read's query time (so that a
 * read without {@code as_of} keeps the first page's moment) and where the previous page stopped in
 * its source, each source with a position of its own ({@link Resume}): in the index table the
 * driver's paging state, how many rows of that page were consumed and the clustering key of the
 * last of them (so that a page resumed after rows were written before it starts behind that row in
 * clustering order, however many were written); in buckets a digest of their labels and seals and
 * the clustering key to resume behind. Bound to the query it came from (a fingerprint of keyspace,
 * table, index, values, bounds, consistency and query time) and signed with HMAC-SHA256, so a
 * token that was altered or belongs to another query is rejected with 400 instead of returning
 * wrong pages.
 *
 * <p>Earlier tokens are still read. An index-table position that names its last row by a digest
 * of its key (version 5, issued until 2026-11-30) resumes behind that row where the rows read hold
 * it, else behind the count. Version 4 (one layout for every source): an index table's position as
 * it was, a buckets' one as {@link LegacyBuckets}, which the planner accepts
 * for several buckets merged and refuses for one bucket (read then by driver paging, now a merge of
 * one bucket; {@link ReadPlanner#resume}).
 */
final class PageToken {
    private static final byte VERSION = 5;
    /** The token version before sources had positions of their own. */
    private static final byte VERSION_4 = 4;
    /** An index-table position whose last row is a digest of its key (issued before {@link #INDEX_TABLE_KEY}). */
    private static final byte INDEX_TABLE = 0;
    private static final byte BUCKETS = 1;
    private static final byte INDEX_TABLE_KEY = 2;
    /** The seal of a version-4 token that pages through an index table, not a bucket. */
    private static final UUID NO_SEAL = new UUID(0, 0);
    /** Bytes of a row identity ({@link #rowId}). */
    static final int ROW_ID_BYTES = 16;
    private static final int HEAD = 1 + 32 + 16;
    private static final int MAC = 32;
    /** One initialized MAC per thread: looking the algorithm up and keying it cost more than signing a token. */
    private final ThreadLocal<Mac> macs;

    /** Where a read resumes in its source. */
    sealed interface Resume permits IndexResume, BucketsResume, LegacyBuckets {}

    /**
     * In the index table: the paging state of the page the position lies in (null: the first), how
     * many of its rows were consumed, and the clustering key the rows read from there on are
     * skipped up to ({@code behind}: the last row consumed, which may lie beyond that page when
     * entries were written before it since; null when there is none). {@code lastRow}: the
     * {@link #rowId} of that row instead, in tokens issued before keys were (null otherwise).
     */
    record IndexResume(byte[] pagingState, int offset, List<ByteBuffer> behind, byte[] lastRow) implements Resume {
        /** The start of the page of {@code pagingState}. */
        static IndexResume at(byte[] pagingState) {
            return new IndexResume(pagingState, 0, null, null);
        }
    }

    /** In buckets merged: the digest of their labels and seals ({@code BucketMerge.seals}) and the clustering key to resume behind. */
    record BucketsResume(UUID seals, List<ByteBuffer> behind) implements Resume {}

    /** A version-4 token through buckets: a seal (one bucket) or a digest of seals (several), and the fields as they were. */
    record LegacyBuckets(UUID seal, byte[] pagingState, int offset) implements Resume {}

    /** A token's content: the query's fingerprint, its query time and where it resumes. */
    record Position(byte[] fingerprint, UUID queryTime, Resume resume) {}

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
        byte[] body;
        if (p.resume() instanceof IndexResume r) {
            if (r.lastRow() != null || (r.offset() > 0 && r.behind() == null)) {
                throw new IllegalArgumentException("a token is issued with the key of the last row consumed: " + r);
            }
            byte[] state = r.pagingState() == null ? new byte[0] : r.pagingState();
            byte[] key = r.behind() == null ? new byte[0] : Composite.encode(r.behind()).array();
            body = ByteBuffer.allocate(1 + 4 + 4 + state.length + 1 + 4 + key.length).put(INDEX_TABLE_KEY).putInt(r.offset()).putInt(state.length)
                    .put(state).put((byte) (r.behind() == null ? 0 : 1)).putInt(key.length).put(key).array();
        } else if (p.resume() instanceof BucketsResume r) {
            byte[] key = Composite.encode(r.behind()).array();
            body = ByteBuffer.allocate(1 + 16 + 4 + key.length).put(BUCKETS).putLong(r.seals().getMostSignificantBits())
                    .putLong(r.seals().getLeastSignificantBits()).putInt(key.length).put(key).array();
        } else {
            throw new IllegalArgumentException("a token is never issued at " + p.resume());
        }
        ByteBuffer b = ByteBuffer.allocate(HEAD + body.length + MAC);
        b.put(VERSION).put(p.fingerprint()).putLong(p.queryTime().getMostSignificantBits()).putLong(p.queryTime().getLeastSignificantBits());
        b.put(body);
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
        if (raw.length < HEAD + 1 + MAC || (raw[0] != VERSION && raw[0] != VERSION_4)) {
            throw ReadException.badRequest("bad_next", raw.length >= HEAD + 1 + MAC && raw[0] > 0 && raw[0] < VERSION_4
                    ? "'next' is not a token this service issued: its format (version " + raw[0] + ") is older than this service reads;"
                            + " read again from the first page"
                    : "'next' is not a token this service issued");
        }
        int bodyLength = raw.length - MAC;
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
        try {
            Resume resume = raw[0] == VERSION_4 ? version4(b) : switch (b.get()) {
                case INDEX_TABLE -> index(b);
                case BUCKETS -> buckets(b);
                case INDEX_TABLE_KEY -> indexKey(b);
                default -> throw new IllegalArgumentException("no such source");
            };
            if (b.hasRemaining()) {
                throw new IllegalArgumentException("bytes left over");
            }
            return new Position(fp, queryTime, resume);
        } catch (RuntimeException e) {
            throw ReadException.badRequest("bad_next", "'next' is malformed");
        }
    }

    private static IndexResume index(ByteBuffer b) {
        int offset = b.getInt();
        byte[] lastRow = new byte[ROW_ID_BYTES];
        b.get(lastRow);
        byte[] state = bytes(b);
        if (offset < 0) {
            throw new IllegalArgumentException("negative offset");
        }
        return new IndexResume(state.length == 0 ? null : state, offset, null, offset == 0 ? null : lastRow);
    }

    private static IndexResume indexKey(ByteBuffer b) {
        int offset = b.getInt();
        byte[] state = bytes(b);
        byte hasKey = b.get();
        byte[] key = bytes(b);
        if (offset < 0 || hasKey < 0 || hasKey > 1 || (hasKey == 0 && (offset > 0 || key.length > 0))) {
            throw new IllegalArgumentException("offset " + offset + ", key " + hasKey + " of " + key.length + " bytes");
        }
        return new IndexResume(state.length == 0 ? null : state, offset, hasKey == 0 ? null : Composite.decode(ByteBuffer.wrap(key)), null);
    }

    private static BucketsResume buckets(ByteBuffer b) {
        UUID seals = new UUID(b.getLong(), b.getLong());
        return new BucketsResume(seals, Composite.decode(ByteBuffer.wrap(bytes(b))));
    }

    /** Version 4: seal (zeros: the index table), offset, last row, paging state. */
    private static Resume version4(ByteBuffer b) {
        UUID seal = new UUID(b.getLong(), b.getLong());
        IndexResume r = index(b);
        return NO_SEAL.equals(seal) ? r : new LegacyBuckets(seal, r.pagingState(), r.offset());
    }

    private static byte[] bytes(ByteBuffer b) {
        int len = b.getInt();
        if (len < 0 || len > b.remaining()) {
            throw new IllegalArgumentException("length " + len);
        }
        byte[] out = new byte[len];
        b.get(out);
        return out;
    }

    private byte[] mac(byte[] data, int length) {
        Mac mac = macs.get();
        mac.update(data, 0, length); // doFinal leaves it reset for the next token
        return mac.doFinal();
    }
}
