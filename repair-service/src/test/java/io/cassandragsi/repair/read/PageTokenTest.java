package io.cassandragsi.repair.read;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The page token (docs/design.md section 8.5): each source's position, signed and bound to its query. */
class PageTokenTest {
    private static final UUID Q = UUID.fromString("76c8f54b-e602-11f1-7f7f-7f7f7f7f7f7f");
    private static final UUID OTHER = UUID.fromString("76c8f54c-e602-11f1-7f7f-7f7f7f7f7f7f");
    private static final UUID SEALS = UUID.fromString("1e3a9c40-5522-11e2-8a4b-0123456789ab");
    private static final byte[] KEY = "a key of thirty-two bytes, or so".getBytes(StandardCharsets.UTF_8);

    private final PageToken tokens = new PageToken(KEY);
    private final byte[] fp = PageToken.fingerprint("query");

    private static PageToken.Position index(byte[] fp, byte[] state, int offset, List<ByteBuffer> behind) {
        return new PageToken.Position(fp, Q, new PageToken.IndexResume(state, offset, behind, null));
    }

    private PageToken.IndexResume indexAt(String token) {
        return (PageToken.IndexResume) tokens.decode(token, q -> fp).resume();
    }

    private static ReadException badNext(Throwable t) {
        assertThat(t).isInstanceOf(ReadException.class);
        assertThat(((ReadException) t).error()).isEqualTo("bad_next");
        return (ReadException) t;
    }

    @Test
    void should_decode_what_it_encoded_when_tokens_are_signed_one_after_another() {
        // the MAC is kept per thread and reused: each token must be signed from a fresh state
        for (int i = 0; i < 5; i++) {
            String t = tokens.encode(index(fp, new byte[] {1, 2, (byte) i}, i, i == 0 ? null : List.of(ByteBuffer.wrap(new byte[] {(byte) i}))));
            assertThat(indexAt(t).offset()).isEqualTo(i);
            assertThat(indexAt(t).pagingState()).containsExactly(1, 2, i);
            assertThat(tokens.decode(t, q -> fp).queryTime()).isEqualTo(Q);
        }
        assertThat(tokens.encode(index(fp, null, 0, null))).isEqualTo(tokens.encode(index(fp, null, 0, null)));
        assertThat(indexAt(tokens.encode(index(fp, null, 0, null))).pagingState()).as("the first index page").isNull();
    }

    @Test
    void should_carry_the_clustering_key_of_the_last_row_consumed_when_a_page_ends_inside_an_index_page() {
        List<ByteBuffer> last = List.of(ByteBuffer.wrap("k7".getBytes(StandardCharsets.UTF_8)), ByteBuffer.allocate(0));
        PageToken.IndexResume p = indexAt(tokens.encode(index(fp, new byte[] {1}, 4, last)));
        assertThat(p.offset()).isEqualTo(4);
        assertThat(p.behind()).isEqualTo(last);
        assertThat(p.lastRow()).isNull();
        assertThat(indexAt(tokens.encode(index(fp, new byte[] {1}, 0, null))).behind()).isNull();
        assertThat(indexAt(tokens.encode(index(fp, new byte[] {1}, 1, List.of()))).behind()).as("an index without clustering columns").isEmpty();
        assertThat(indexAt(tokens.encode(index(fp, new byte[] {1}, 0, List.of()))).behind()).as("the next index page, still behind a key of no columns")
                .isEmpty();
        assertThat(indexAt(tokens.encode(index(fp, new byte[] {1}, 0, last))).behind()).as("the next index page, still behind").isEqualTo(last);
        assertThatThrownBy(() -> tokens.encode(index(fp, new byte[] {1}, 4, null))).as("rows consumed, no key").isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void should_carry_the_seals_and_the_key_to_resume_behind_when_a_read_pages_through_buckets() {
        List<ByteBuffer> key = List.of(ByteBuffer.wrap("v10".getBytes(StandardCharsets.UTF_8)), ByteBuffer.allocate(0));
        String t = tokens.encode(new PageToken.Position(fp, Q, new PageToken.BucketsResume(SEALS, key)));
        PageToken.BucketsResume p = (PageToken.BucketsResume) tokens.decode(t, q -> fp).resume();
        assertThat(p.seals()).isEqualTo(SEALS);
        assertThat(p.behind()).isEqualTo(key);
        assertThat(t).isNotEqualTo(tokens.encode(new PageToken.Position(fp, Q, new PageToken.BucketsResume(Q, key))));
    }

    @Test
    void should_refuse_a_token_when_another_key_signed_it_or_it_belongs_to_another_query() {
        String t = tokens.encode(index(fp, new byte[] {7}, 0, null));
        assertThatThrownBy(() -> PageToken.randomKey().decode(t, q -> fp)).isInstanceOf(ReadException.class).hasMessageContaining("altered");
        assertThatThrownBy(() -> tokens.decode(t, q -> PageToken.fingerprint("other"))).isInstanceOf(ReadException.class)
                .hasMessageContaining("another query");
    }

    @Test
    void should_give_the_fingerprint_check_the_query_time_the_token_carries() {
        // a read without as_of: its next page is the same query as of the first page's moment
        String t = tokens.encode(index(PageToken.fingerprint("query@" + Q), null, 0, null));
        assertThat(tokens.decode(t, q -> PageToken.fingerprint("query@" + q)).queryTime()).isEqualTo(Q);
        assertThatThrownBy(() -> tokens.decode(t, q -> PageToken.fingerprint("query@" + OTHER))).isInstanceOf(ReadException.class)
                .hasMessageContaining("another query");
    }

    @Test
    void should_refuse_as_bad_next_when_any_byte_of_a_token_is_altered() {
        for (PageToken.Position p : List.of(index(fp, new byte[] {9}, 2, List.of(ByteBuffer.wrap(new byte[] {5}))),
                new PageToken.Position(fp, Q, new PageToken.BucketsResume(SEALS, List.of(ByteBuffer.wrap(new byte[] {1})))))) {
            byte[] raw = Base64.getUrlDecoder().decode(tokens.encode(p));
            for (int i = 1; i < raw.length; i++) {
                byte[] altered = raw.clone();
                altered[i] ^= 0x01;
                String bad = Base64.getUrlEncoder().withoutPadding().encodeToString(altered);
                assertThatThrownBy(() -> tokens.decode(bad, q -> fp)).as("byte %d", i).satisfies(PageTokenTest::badNext);
            }
        }
    }

    @Test
    void should_refuse_a_token_of_a_format_older_than_version_four_saying_so() {
        byte[] raw = Base64.getUrlDecoder().decode(tokens.encode(index(fp, null, 0, null)));
        assertThat(raw[0]).as("token version").isEqualTo((byte) 5);
        raw[0] = 3;
        String old = Base64.getUrlEncoder().withoutPadding().encodeToString(raw);
        assertThatThrownBy(() -> tokens.decode(old, q -> fp)).satisfies(PageTokenTest::badNext).hasMessageContaining("older than this service reads");
    }
}
