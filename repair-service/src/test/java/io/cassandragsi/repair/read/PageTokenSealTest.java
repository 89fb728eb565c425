package io.cassandragsi.repair.read;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The seal a page token carries (docs/design.md section 8.5, token version 4): a read that pages
 * through a bucket keeps the seal of its first page, a read of the index table carries none, and a
 * token whose seal was changed is refused.
 */
class PageTokenSealTest {
    private static final UUID Q = UUID.fromString("76c8f54b-e602-11f1-7f7f-7f7f7f7f7f7f");
    private static final UUID SEAL = UUID.fromString("1e3a9c40-5522-11e2-8a4b-0123456789ab");
    private static final byte[] KEY = "a key of thirty-two bytes, or so".getBytes(StandardCharsets.UTF_8);
    /** Where the seal sits in a token: after the version byte, the fingerprint and the query time. */
    private static final int SEAL_OFFSET = 1 + 32 + 16;

    private final PageToken tokens = new PageToken(KEY);
    private final byte[] fp = PageToken.fingerprint("query");

    private static ReadException readError(Throwable t) {
        return (ReadException) t;
    }

    @Test
    void should_decode_the_same_seal_when_a_token_carries_one() {
        byte[] last = PageToken.rowId(List.of(ByteBuffer.wrap(new byte[] {7})));
        String t = tokens.encode(new PageToken.Position(fp, Q, new byte[] {1, 2}, 3, last, SEAL));
        PageToken.Position p = tokens.decode(t, q -> fp);

        assertThat(p.seal()).isEqualTo(SEAL);
        assertThat(p.queryTime()).isEqualTo(Q);
        assertThat(p.offset()).isEqualTo(3);
        assertThat(p.pagingState()).containsExactly(1, 2);
        assertThat(p.lastRow()).containsExactly(last);
    }

    @Test
    void should_decode_no_seal_when_a_token_pages_through_the_index_table() {
        assertThat(tokens.decode(tokens.encode(new PageToken.Position(fp, Q, new byte[] {1}, 0)), q -> fp).seal()).isNull();
        assertThat(tokens.decode(tokens.encode(new PageToken.Position(fp, Q, null, 2, new byte[PageToken.ROW_ID_BYTES], null)), q -> fp).seal())
                .isNull();
    }

    @Test
    void should_give_different_tokens_when_only_the_seal_differs() {
        UUID other = new UUID(SEAL.getMostSignificantBits(), SEAL.getLeastSignificantBits() + 1);
        String a = tokens.encode(new PageToken.Position(fp, Q, null, 0, null, SEAL));
        String b = tokens.encode(new PageToken.Position(fp, Q, null, 0, null, other));
        String none = tokens.encode(new PageToken.Position(fp, Q, null, 0));
        assertThat(a).isNotEqualTo(b).isNotEqualTo(none);
        assertThat(tokens.decode(b, q -> fp).seal()).isEqualTo(other);
    }

    @Test
    void should_refuse_as_bad_next_when_a_byte_of_the_seal_is_altered() {
        String t = tokens.encode(new PageToken.Position(fp, Q, new byte[] {9}, 0, null, SEAL));
        byte[] raw = Base64.getUrlDecoder().decode(t);
        for (int i = 0; i < 16; i++) {
            byte[] altered = raw.clone();
            altered[SEAL_OFFSET + i] ^= 0x01;
            String bad = Base64.getUrlEncoder().withoutPadding().encodeToString(altered);
            assertThatThrownBy(() -> tokens.decode(bad, q -> fp)).as("seal byte %d", i).isInstanceOf(ReadException.class)
                    .satisfies(e -> assertThat(readError(e).error()).isEqualTo("bad_next"))
                    .hasMessageContaining("altered");
        }
        // sanity: the bytes changed are the seal's
        assertThat(ByteBuffer.wrap(raw, SEAL_OFFSET, 16).getLong()).isEqualTo(SEAL.getMostSignificantBits());
    }

    @Test
    void should_refuse_as_bad_next_when_a_token_without_a_seal_is_given_one() {
        String t = tokens.encode(new PageToken.Position(fp, Q, null, 0));
        byte[] raw = Base64.getUrlDecoder().decode(t);
        assertThat(ByteBuffer.wrap(raw, SEAL_OFFSET, 16).getLong()).as("no seal: zeros").isZero();
        ByteBuffer.wrap(raw).putLong(SEAL_OFFSET, SEAL.getMostSignificantBits()).putLong(SEAL_OFFSET + 8, SEAL.getLeastSignificantBits());
        String bad = Base64.getUrlEncoder().withoutPadding().encodeToString(raw);
        assertThatThrownBy(() -> tokens.decode(bad, q -> fp)).isInstanceOf(ReadException.class)
                .satisfies(e -> assertThat(readError(e).error()).isEqualTo("bad_next"));
    }

    @Test
    void should_refuse_as_bad_next_when_a_token_is_of_the_version_before_seals() {
        String t = tokens.encode(new PageToken.Position(fp, Q, null, 0, null, SEAL));
        byte[] raw = Base64.getUrlDecoder().decode(t);
        assertThat(raw[0]).as("token version").isEqualTo((byte) 4);
        raw[0] = 3;
        String old = Base64.getUrlEncoder().withoutPadding().encodeToString(raw);
        assertThatThrownBy(() -> tokens.decode(old, q -> fp)).isInstanceOf(ReadException.class)
                .satisfies(e -> assertThat(readError(e).error()).isEqualTo("bad_next"))
                .hasMessageContaining("not a token this service issued");
    }

    @Test
    void should_carry_the_resume_key_of_a_read_that_merges_buckets_as_its_paging_state() {
        List<ByteBuffer> key = List.of(ByteBuffer.wrap("v10".getBytes(StandardCharsets.UTF_8)), ByteBuffer.allocate(0));
        byte[] state = io.cassandragsi.schema.Composite.encode(key).array();
        PageToken.Position p = tokens.decode(tokens.encode(new PageToken.Position(fp, Q, state, 0, null, SEAL)), q -> fp);
        assertThat(io.cassandragsi.schema.Composite.decode(java.nio.ByteBuffer.wrap(p.pagingState()))).isEqualTo(key);
        assertThat(p.seal()).isEqualTo(SEAL);
    }
}
