package io.cassandragsi.repair.read;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class PageTokenTest {
    private static final UUID Q = UUID.fromString("76c8f54b-e602-11f1-7f7f-7f7f7f7f7f7f");
    private static final UUID OTHER = UUID.fromString("76c8f54c-e602-11f1-7f7f-7f7f7f7f7f7f");
    private static final byte[] KEY = "a key of thirty-two bytes, or so".getBytes(StandardCharsets.UTF_8);

    @Test
    void should_decode_what_it_encoded_when_tokens_are_signed_one_after_another() {
        PageToken tokens = new PageToken(KEY);
        byte[] fp = PageToken.fingerprint("query");
        // the MAC is kept per thread and reused: each token must be signed from a fresh state
        for (int i = 0; i < 5; i++) {
            String t = tokens.encode(new PageToken.Position(fp, Q, new byte[] {1, 2, (byte) i}, i));
            PageToken.Position p = tokens.decode(t, q -> fp);
            assertThat(p.offset()).isEqualTo(i);
            assertThat(p.pagingState()).containsExactly(1, 2, i);
            assertThat(p.queryTime()).isEqualTo(Q);
        }
        assertThat(tokens.encode(new PageToken.Position(fp, Q, null, 3))).isEqualTo(tokens.encode(new PageToken.Position(fp, Q, null, 3)));
    }

    @Test
    void should_carry_the_identity_of_the_last_row_consumed_when_a_page_ends_inside_an_index_page() {
        PageToken tokens = new PageToken(KEY);
        byte[] fp = PageToken.fingerprint("query");
        byte[] last = PageToken.rowId(java.util.List.of(java.nio.ByteBuffer.wrap(new byte[] {7})));
        PageToken.Position p = tokens.decode(tokens.encode(new PageToken.Position(fp, Q, new byte[] {1}, 4, last)), q -> fp);
        assertThat(p.offset()).isEqualTo(4);
        assertThat(p.lastRow()).containsExactly(last);
        assertThat(tokens.decode(tokens.encode(new PageToken.Position(fp, Q, new byte[] {1}, 0)), q -> fp).lastRow()).isNull();
    }

    @Test
    void should_refuse_a_token_when_another_key_signed_it_or_it_belongs_to_another_query() {
        byte[] fp = PageToken.fingerprint("query");
        String t = new PageToken(KEY).encode(new PageToken.Position(fp, Q, new byte[] {7}, 0));
        assertThatThrownBy(() -> PageToken.randomKey().decode(t, q -> fp)).isInstanceOf(ReadException.class).hasMessageContaining("altered");
        assertThatThrownBy(() -> new PageToken(KEY).decode(t, q -> PageToken.fingerprint("other")))
                .isInstanceOf(ReadException.class).hasMessageContaining("another query");
    }

    @Test
    void should_give_the_fingerprint_check_the_query_time_the_token_carries() {
        // a read without as_of: its next page is the same query as of the first page's moment
        String t = new PageToken(KEY).encode(new PageToken.Position(PageToken.fingerprint("query@" + Q), Q, null, 0));
        assertThat(new PageToken(KEY).decode(t, q -> PageToken.fingerprint("query@" + q)).queryTime()).isEqualTo(Q);
        assertThatThrownBy(() -> new PageToken(KEY).decode(t, q -> PageToken.fingerprint("query@" + OTHER)))
                .isInstanceOf(ReadException.class).hasMessageContaining("another query");
    }
}
