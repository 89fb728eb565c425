package io.cassandragsi.repair.read;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.UUID;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;

/**
 * Tokens that the service issued before sources had positions of their own (version 4,
 * docs/design.md section 8.5), or before an index-table position carried its last row's key
 * (version 5, kind 0), keep working where they can: an index table's position as it was, a
 * merge's as a position in buckets; one bucket's (read then by the driver's paging) is 400
 * bad_next saying why. The version-4 layout is written here byte by byte, as those tokens are.
 */
class PageTokenVersion4Test {
    private static final UUID Q = UUID.fromString("76c8f54b-e602-11f1-7f7f-7f7f7f7f7f7f");
    private static final UUID SEAL = UUID.fromString("1e3a9c40-5522-11e2-8a4b-0123456789ab");
    private static final byte[] KEY = "a key of thirty-two bytes, or so".getBytes(StandardCharsets.UTF_8);

    private final PageToken tokens = new PageToken(KEY);
    private final byte[] fp = PageToken.fingerprint("query");

    /** A version-4 token: version, fingerprint, query time, seal (zeros: none), offset, last row, state length, state, HMAC. */
    private String version4(UUID seal, int offset, byte[] lastRow, byte[] state) throws Exception {
        ByteBuffer b = ByteBuffer.allocate(1 + 32 + 16 + 16 + 4 + 16 + 4 + state.length + 32);
        UUID s = seal == null ? new UUID(0, 0) : seal;
        b.put((byte) 4).put(fp).putLong(Q.getMostSignificantBits()).putLong(Q.getLeastSignificantBits()).putLong(s.getMostSignificantBits())
                .putLong(s.getLeastSignificantBits()).putInt(offset).put(lastRow == null ? new byte[16] : lastRow).putInt(state.length).put(state);
        return signed(b);
    }

    /** The token of the bytes written into {@code b}, its last 32 bytes left for the HMAC. */
    private static String signed(ByteBuffer b) throws Exception {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(KEY, "HmacSHA256"));
        mac.update(b.array(), 0, b.position());
        b.put(mac.doFinal());
        return Base64.getUrlEncoder().withoutPadding().encodeToString(b.array());
    }

    @Test
    void should_resume_an_index_table_read_from_a_version_4_token() throws Exception {
        byte[] last = PageToken.rowId(List.of(ByteBuffer.wrap(new byte[] {7})));
        PageToken.Position p = tokens.decode(version4(null, 3, last, new byte[] {1, 2}), q -> fp);
        assertThat(p.queryTime()).isEqualTo(Q);
        PageToken.IndexResume r = (PageToken.IndexResume) p.resume();
        assertThat(r.pagingState()).containsExactly(1, 2);
        assertThat(r.offset()).isEqualTo(3);
        assertThat(r.lastRow()).containsExactly(last);
        assertThat(ReadPlanner.resume(r)).isSameAs(r);
    }

    /** A version-5 token of an index table as issued until keys were: kind 0, offset, digest of the last row, state length, state. */
    private String version5(int offset, byte[] lastRow, byte[] state) throws Exception {
        ByteBuffer b = ByteBuffer.allocate(1 + 32 + 16 + 1 + 4 + 16 + 4 + state.length + 32);
        b.put((byte) 5).put(fp).putLong(Q.getMostSignificantBits()).putLong(Q.getLeastSignificantBits()).put((byte) 0).putInt(offset).put(lastRow)
                .putInt(state.length).put(state);
        return signed(b);
    }

    @Test
    void should_resume_an_index_table_read_from_a_version_5_token_that_names_its_last_row_by_digest() throws Exception {
        byte[] last = PageToken.rowId(List.of(ByteBuffer.wrap(new byte[] {7})));
        PageToken.IndexResume r = (PageToken.IndexResume) tokens.decode(version5(2, last, new byte[] {3}), q -> fp).resume();
        assertThat(r.pagingState()).containsExactly(3);
        assertThat(r.offset()).isEqualTo(2);
        assertThat(r.lastRow()).containsExactly(last);
        assertThat(r.behind()).isNull();
    }

    @Test
    void should_resume_a_merged_read_from_a_version_4_token_behind_the_key_it_carries() throws Exception {
        List<ByteBuffer> key = List.of(ByteBuffer.wrap("v10".getBytes(StandardCharsets.UTF_8)), ByteBuffer.allocate(0));
        PageToken.Resume r = tokens.decode(version4(SEAL, 0, null, io.cassandragsi.schema.Composite.encode(key).array()), q -> fp).resume();
        assertThat(r).isInstanceOf(PageToken.LegacyBuckets.class);
        PageToken.BucketsResume b = (PageToken.BucketsResume) ReadPlanner.resume(r);
        assertThat(b.seals()).isEqualTo(SEAL);
        assertThat(b.behind()).isEqualTo(key);
    }

    @Test
    void should_refuse_a_version_4_token_with_an_altered_byte() throws Exception {
        byte[] raw = Base64.getUrlDecoder().decode(version4(SEAL, 0, null, new byte[] {1}));
        raw[1 + 32 + 16] ^= 1; // the seal
        String bad = Base64.getUrlEncoder().withoutPadding().encodeToString(raw);
        assertThatThrownBy(() -> tokens.decode(bad, q -> fp)).isInstanceOf(ReadException.class).hasMessageContaining("altered");
    }
}
