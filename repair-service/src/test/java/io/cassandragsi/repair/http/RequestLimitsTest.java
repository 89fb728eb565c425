package io.cassandragsi.repair.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.undertow.util.HeaderMap;
import io.undertow.util.HttpString;
import org.junit.jupiter.api.Test;

/** Our own request limits (JSON errors naming the limit) and the strict path and query decoding. */
class RequestLimitsTest {
    private static HttpError refusal(Runnable r) {
        try {
            r.run();
            return null;
        } catch (HttpError e) {
            return e;
        }
    }

    @Test
    void should_answer_414_naming_the_limit_when_the_path_or_query_is_too_long() {
        HttpError path = refusal(() -> RequestLimits.checkTarget("/v1/" + "a".repeat(70_000), ""));
        assertThat(path.status()).isEqualTo(414);
        assertThat(path.detail()).contains(String.valueOf(RequestLimits.MAX_PATH_BYTES));
        HttpError query = refusal(() -> RequestLimits.checkTarget("/v1", "a=" + "b".repeat(RequestLimits.MAX_QUERY_BYTES)));
        assertThat(query.status()).isEqualTo(414);
        assertThat(query.detail()).contains(String.valueOf(RequestLimits.MAX_QUERY_BYTES));
        assertThat(refusal(() -> RequestLimits.checkTarget("/v1/ks/t//i/1", "limit=5"))).isNull();
    }

    @Test
    void should_answer_431_when_headers_are_too_many_or_too_large() {
        HeaderMap many = new HeaderMap();
        for (int i = 0; i <= RequestLimits.MAX_HEADERS; i++) {
            many.add(new HttpString("X-Flood-" + i), "1");
        }
        assertThat(refusal(() -> RequestLimits.checkHeaders(many)).status()).isEqualTo(431);
        HeaderMap huge = new HeaderMap();
        huge.add(new HttpString("X-Huge"), "h".repeat(RequestLimits.MAX_HEADER_BYTES + 1));
        HttpError e = refusal(() -> RequestLimits.checkHeaders(huge));
        assertThat(e.status()).isEqualTo(431);
        assertThat(e.detail()).contains("X-Huge").contains(String.valueOf(RequestLimits.MAX_HEADER_BYTES));
        HeaderMap total = new HeaderMap();
        for (int i = 0; i < 5; i++) {
            total.add(new HttpString("X-Big-" + i), "b".repeat(RequestLimits.MAX_HEADER_BYTES - 100));
        }
        assertThat(refusal(() -> RequestLimits.checkHeaders(total)).status()).isEqualTo(431);
        HeaderMap normal = new HeaderMap();
        normal.add(new HttpString("Host"), "127.0.0.1:8080");
        assertThat(refusal(() -> RequestLimits.checkHeaders(normal))).isNull();
    }

    @Test
    void should_answer_413_when_a_request_has_a_body() {
        assertThat(refusal(() -> RequestLimits.checkNoBody(10, false)).status()).isEqualTo(413);
        assertThat(refusal(() -> RequestLimits.checkNoBody(-1, true)).status()).isEqualTo(413);
        assertThat(refusal(() -> RequestLimits.checkNoBody(0, false))).isNull();
    }

    @Test
    void should_answer_400_when_there_are_too_many_segments_or_parameters() {
        assertThat(refusal(() -> PathCodec.segments("/a".repeat(RequestLimits.MAX_SEGMENTS)))).as("at the limit").isNull();
        assertThat(refusal(() -> PathCodec.segments("/a".repeat(RequestLimits.MAX_SEGMENTS + 1))).status()).isEqualTo(400);
        assertThat(PathCodec.segments("/v1/ks/t//i/1")).containsExactly("v1", "ks", "t", "", "i", "1");
        StringBuilder q = new StringBuilder("p0=0");
        for (int i = 1; i <= RequestLimits.MAX_PARAMETERS; i++) {
            q.append("&p").append(i).append('=').append(i);
        }
        assertThat(refusal(() -> PathCodec.query(q.toString())).status()).isEqualTo(400);
    }

    @Test
    void should_answer_400_fast_when_escapes_are_invalid_or_not_utf8() {
        for (String raw : new String[] {"%FF", "%C3%28", "%E2%82", "%G1", "%", "%4", "a%zz", "%ED%A0%80"}) {
            long t0 = System.nanoTime();
            HttpError e = refusal(() -> PathCodec.segments("/v1/" + raw));
            assertThat(e).as(raw).isNotNull();
            assertThat(e.status()).isEqualTo(400);
            assertThat(e.error()).isEqualTo("bad_encoding");
            assertThat(System.nanoTime() - t0).isLessThan(50_000_000L);
        }
        assertThat(PathCodec.segments("/%C3%A9%2F")).containsExactly("é/");
    }
}
