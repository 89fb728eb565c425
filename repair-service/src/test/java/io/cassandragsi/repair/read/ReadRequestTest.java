package io.cassandragsi.repair.read;

import static org.assertj.core.api.Assertions.assertThat;

import com.datastax.oss.driver.api.core.uuid.Uuids;
import io.cassandragsi.repair.store.IndexTable;
import io.cassandragsi.schema.Definitions;
import io.cassandragsi.schema.TableDef;
import org.junit.jupiter.api.Test;

/** A read's input parsed and validated against its index, without a node. */
class ReadRequestTest {
    private static final TableDef DEF = Definitions.parse("""
            {"keyspace": "ks", "table": "revisions",
             "attributes": {"key": "string", "tid": "timeuuid", "length": "varint", "value": "string", "author": "string"},
             "index": [{"type": "hash", "attribute": "key"}, {"type": "range", "order": "desc", "attribute": "tid"}],
             "secondaryIndexes": {
               "by_length": [{"type": "hash", "attribute": "length"}, {"type": "proj", "attribute": "value"}],
               "by_author": [{"type": "hash", "attribute": "author"}, {"type": "range", "attribute": "tid"}]}}
            """, "revisions.json");
    private static final TableDef USERS = Definitions.parse("""
            {"keyspace": "app", "table": "users", "attributes": {"id": "string", "email": "string"},
             "index": [{"type": "hash", "attribute": "id"}],
             "secondaryIndexes": {"by_email": [{"type": "hash", "attribute": "email"}]}}
            """, "users.json");

    private static final String T1 = Uuids.startOf(1_767_225_600_000L).toString();
    private static final String T2 = Uuids.startOf(1_769_904_000_000L).toString();

    private static ReadRequest parse(TableDef def, IndexReader.Query q) {
        return ReadRequest.parse(q, def, def.index(q.index()));
    }

    private static int status(TableDef def, IndexReader.Query q) {
        try {
            parse(def, q);
            return 200;
        } catch (ReadException e) {
            return io.cassandragsi.repair.http.ErrorMapper.status(e);
        }
    }

    @Test
    void should_parse_values_bounds_and_limit_when_the_request_is_well_formed() {
        ReadRequest r = parse(DEF, IndexReader.Query.of("ks", "revisions", "by_author", "ann")
                .withBounds(null, T1, T2, null).withLimit(10));
        assertThat(r.fixed).hasSize(1);
        assertThat(r.lower.op()).isEqualTo(">=");
        assertThat(r.upper.op()).isEqualTo("<");
        assertThat(r.limit).isEqualTo(10);
        assertThat(r.shape()).isEqualTo(new IndexTable.Shape(0, ">=", "<"));
        assertThat(parse(DEF, IndexReader.Query.of("ks", "revisions", "by_length", "7")).limit).isEqualTo(IndexReader.DEFAULT_LIMIT);
    }

    @Test
    void should_answer_400_when_values_bounds_limit_or_as_of_are_bad() {
        assertThat(status(DEF, IndexReader.Query.of("ks", "revisions", "by_length"))).as("no hash value").isEqualTo(400);
        assertThat(status(DEF, IndexReader.Query.of("ks", "revisions", "by_length", "7", "8"))).as("too many values").isEqualTo(400);
        assertThat(status(DEF, IndexReader.Query.of("ks", "revisions", "by_length", "seven"))).as("not a varint").isEqualTo(400);
        assertThat(status(DEF, IndexReader.Query.of("ks", "revisions", "by_length", "7").withBounds("1", null, null, null)))
                .as("no free range attribute").isEqualTo(400);
        assertThat(status(DEF, IndexReader.Query.of("ks", "revisions", "by_author", "ann").withBounds("1", "2", null, null)))
                .as("gt and ge").isEqualTo(400);
        assertThat(status(DEF, IndexReader.Query.of("ks", "revisions", "by_length", "7").withLimit(IndexReader.MAX_LIMIT + 1))).isEqualTo(400);
        assertThat(status(DEF, IndexReader.Query.of("ks", "revisions", "by_length", "7").withAsOf("yesterday"))).isEqualTo(400);
        assertThat(status(USERS, IndexReader.Query.of("app", "users", "by_email", "a@b").withAsOf("2026-01-01T00:00:00Z").withConsistent(true)))
                .as("consistent as_of on an unversioned table").isEqualTo(400);
        assertThat(status(USERS, IndexReader.Query.of("app", "users", "by_email", "a@b").withAsOf("2026-01-01T00:00:00Z"))).isEqualTo(200);
    }

    @Test
    void should_bind_tokens_to_the_query_when_bounds_or_consistency_differ() {
        IndexReader.Query q = IndexReader.Query.of("ks", "revisions", "by_author", "ann");
        java.util.UUID at = ReadRequest.queryTime(null);
        String plain = parse(DEF, q).canonical(at);
        assertThat(parse(DEF, q).canonical(at)).isEqualTo(plain);
        assertThat(parse(DEF, q.withConsistent(true)).canonical(at)).isNotEqualTo(plain);
        assertThat(parse(DEF, q.withBounds(T1, null, null, null)).canonical(at)).isNotEqualTo(plain);
        assertThat(parse(DEF, q.withLimit(5)).canonical(at)).as("the limit may change between pages").isEqualTo(plain);
    }

    @Test
    void should_parse_a_window_with_an_inclusive_start_and_an_exclusive_end() {
        ReadRequest r = parse(DEF, IndexReader.Query.of("ks", "revisions", "by_length", "7").withWindow("2026-01-01T00:00:00Z", T2));
        assertThat(r.window()).isTrue();
        assertThat(r.from).as("the last tid of ts_ge's tick: the version current then counts")
                .isEqualTo(io.cassandragsi.index.Tids.maxAtTicks(io.cassandragsi.index.Tids.ticks(java.time.Instant.parse("2026-01-01T00:00:00Z"))));
        assertThat(io.cassandragsi.index.Tids.compare(r.upTo, java.util.UUID.fromString(T2))).as("before ts_lt").isNegative();
        assertThat(io.cassandragsi.index.WriteTimestamps.of(r.upTo)).isEqualTo(io.cassandragsi.index.WriteTimestamps.of(java.util.UUID.fromString(T2)) - 1);
        assertThat(r.fixedTime()).isEqualTo(r.upTo);
        assertThat(parse(DEF, IndexReader.Query.of("ks", "revisions", "by_length", "7").withWindow(T1, null)).fixedTime())
                .as("an open window ends at the first page's moment").isNull();
        assertThat(parse(DEF, IndexReader.Query.of("ks", "revisions", "by_length", "7").withWindow(null, T2)).from)
                .as("no ts_ge: from the beginning").isEqualTo(ReadRequest.EARLIEST);
        assertThat(parse(DEF, IndexReader.Query.of("ks", "revisions", "by_length", "7")).window()).isFalse();
    }

    @Test
    void should_answer_400_when_a_window_is_bad() {
        IndexReader.Query q = IndexReader.Query.of("ks", "revisions", "by_length", "7");
        assertThat(status(DEF, q.withWindow(T1, null).withAsOf(T2))).as("as_of and a window").isEqualTo(400);
        assertThat(status(DEF, q.withWindow(T2, T1))).as("ts_ge after ts_lt").isEqualTo(400);
        assertThat(status(DEF, q.withWindow(T1, T1))).as("an empty window").isEqualTo(400);
        assertThat(status(DEF, q.withWindow("soon", null))).isEqualTo(400);
        assertThat(status(DEF, q.withWindow(null, "0cd3d930-e5ce-41f1-bedb-1100a1903cc0"))).as("not a timeuuid").isEqualTo(400);
        IndexReader.Query users = IndexReader.Query.of("app", "users", "by_email", "a@b").withWindow(T1, T2);
        assertThat(status(USERS, users.withConsistent(true))).as("consistent window on an unversioned table").isEqualTo(400);
        assertThat(status(USERS, users)).isEqualTo(200);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> parse(DEF, q.withWindow(T1, null).withAsOf(T2)))
                .isInstanceOf(ReadException.class).hasMessageContaining("as_of").hasMessageContaining("ts_ge");
    }

    @Test
    void should_bind_tokens_to_the_window() {
        IndexReader.Query q = IndexReader.Query.of("ks", "revisions", "by_length", "7");
        java.util.UUID at = ReadRequest.queryTime(null);
        String moment = parse(DEF, q).canonical(at);
        assertThat(parse(DEF, q.withWindow(T1, null)).canonical(at)).isNotEqualTo(moment)
                .isNotEqualTo(parse(DEF, q.withWindow(T2, null)).canonical(at));
    }

    @Test
    void should_answer_400_naming_both_when_a_fresh_read_comes_with_as_of_a_window_or_consistent() {
        IndexReader.Query fresh = IndexReader.Query.of("ks", "revisions", "by_length", "7").fresh();
        assertThat(parse(DEF, fresh).fresh()).isTrue();
        assertThat(parse(DEF, fresh).fixedTime()).as("as of the moment it arrives, fixed by the reader").isNull();
        for (IndexReader.Query q : java.util.List.of(fresh.withAsOf(T1), fresh.withAsOf("safe"), fresh.withWindow(T1, null), fresh.withConsistent(true))) {
            ReadException e = org.junit.jupiter.api.Assertions.assertThrows(ReadException.class, () -> parse(DEF, q));
            assertThat(e.error()).isEqualTo("bad_fresh");
            assertThat(e.detail()).contains("fresh=true").containsAnyOf("as_of", "ts_ge", "consistent=true");
        }
        assertThat(status(DEF, IndexReader.Query.of("ks", "revisions", "by_length", "7").withMaxWait(java.time.Duration.ofSeconds(1))))
                .as("max_wait without fresh=true").isEqualTo(400);
        assertThat(status(DEF, fresh.withMaxWait(java.time.Duration.ofMillis(-1)))).as("a negative max_wait").isEqualTo(400);
        assertThat(status(USERS, IndexReader.Query.of("app", "users", "by_email", "a@b").fresh())).as("unversioned tables too").isEqualTo(200);
    }

    @Test
    void should_wait_at_most_the_lower_of_max_wait_and_the_timeout_when_a_read_is_fresh() {
        java.time.Duration timeout = java.time.Duration.ofSeconds(2);
        IndexReader.Query fresh = IndexReader.Query.of("ks", "revisions", "by_length", "7").fresh();
        assertThat(parse(DEF, fresh).maxWait(timeout)).isEqualTo(timeout);
        assertThat(parse(DEF, fresh.withMaxWait(java.time.Duration.ofMillis(300))).maxWait(timeout)).isEqualTo(java.time.Duration.ofMillis(300));
        assertThat(parse(DEF, fresh.withMaxWait(java.time.Duration.ofSeconds(9))).maxWait(timeout)).as("max_wait only lowers it").isEqualTo(timeout);
    }

    @Test
    void should_bind_tokens_of_a_fresh_read_to_fresh_reads_only() {
        java.util.UUID at = com.datastax.oss.driver.api.core.uuid.Uuids.timeBased();
        IndexReader.Query plain = IndexReader.Query.of("ks", "revisions", "by_length", "7");
        assertThat(parse(DEF, plain.fresh()).canonical(at)).isNotEqualTo(parse(DEF, plain).canonical(at));
    }
}
