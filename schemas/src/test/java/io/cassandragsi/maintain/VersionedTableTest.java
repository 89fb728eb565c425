package io.cassandragsi.maintain;

import static org.assertj.core.api.Assertions.assertThat;

import io.cassandragsi.index.IndexPlan;
import io.cassandragsi.index.RowReconcile;
import io.cassandragsi.index.TablePlan;
import io.cassandragsi.index.Tids;
import io.cassandragsi.index.WriteTimestamps;
import io.cassandragsi.schema.Definitions;
import io.cassandragsi.schema.QueueLayout;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The repair core's orchestration of a versioned table ({@link VersionedTable}, docs/design.md
 * sections 6.2 to 6.5) through the in-memory twins ({@link MemoryStores}), on the service's storage
 * and on the in-node maintainer's ({@link MemoryStores#node}): which reads decide what, what reaches
 * the sink and the rows table, in which order, and what each outcome is.
 */
class VersionedTableTest {
    static final TablePlan PLAN = TablePlan.of(Definitions.read(Path.of("examples/revisions.json")));
    static final IndexPlan BY_LENGTH = index(PLAN, "by_length");
    static final IndexPlan BY_TID = index(PLAN, "by_tid");
    /** 2026-01-01T00:00:00Z. */
    static final long T0 = 1_767_225_600_000L;

    long now = T0;
    final MemoryStores stores = MemoryStores.of(PLAN, () -> now);
    final MemoryTrigger trigger = new MemoryTrigger(stores, () -> now);
    final RepairCounters counters = new RepairCounters();

    static IndexPlan index(TablePlan plan, String name) {
        return plan.indexes().stream().filter(p -> p.index().name().equals(name)).findFirst().orElseThrow();
    }

    static ByteBuffer text(String s) {
        return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
    }

    static ByteBuffer varint(long v) {
        return ByteBuffer.wrap(BigInteger.valueOf(v).toByteArray());
    }

    /** A tid {@code millis} after T0, in a tick of its own unless {@code lsb} differs only. */
    static UUID tid(long millis, long lsb) {
        return Tids.fromTicks((T0 + millis) * 10_000L, lsb);
    }

    static UUID tid(long millis) {
        return tid(millis, 1);
    }

    /** A complete version of row {@code key}: its length (null: none) and value. */
    static Version version(String key, UUID tid, Integer length, String value) {
        return new Version(new ByteBuffer[] {text(key), Tids.bytes(tid), length == null ? null : varint(length), text(value)}, 1);
    }

    /** The trigger's batch for an {@code INSERT} of {@code v} at the tid's own time (no TTL). */
    MemoryTrigger.Batch insert(Version v) {
        return trigger.write(v, true, WriteTimestamps.of(v.tid()) / 10, 0);
    }

    Outcome repair(MemoryStores on, MarkerGroup g) {
        return TableKind.of(PLAN, on, counters).repair(g, null, on.sink());
    }

    static List<ByteBuffer> lengthKey(int length, String key) {
        return List.of(varint(length), text(key));
    }

    RowReconcile.EntryState entry(IndexPlan index, List<ByteBuffer> key) {
        return stores.entries.entryState(index, key);
    }

    boolean matches(List<ByteBuffer> lengthKey) {
        RowReconcile.EntryState e = entry(BY_LENGTH, lengthKey);
        return e != null && e.matches();
    }

    /** v1 (length 1) and v2 (length 2) of row k, landed, their diffs done: the usual start. */
    void twoVersions() {
        for (Version v : List.of(version("k", tid(0), 1, "a"), version("k", tid(10), 2, "b"))) {
            MemoryTrigger.Batch b = insert(v);
            b.land();
            assertThat(repair(stores, b.group())).isEqualTo(Outcome.DONE);
        }
    }

    @Test
    void should_mark_the_older_entry_deleted_at_the_newer_tid_when_a_plain_diff_runs() {
        MemoryTrigger.Batch b1 = insert(version("k", tid(0), 1, "a"));
        MemoryTrigger.Batch b2 = insert(version("k", tid(10), 2, "b"));
        b1.land();
        b2.land();

        assertThat(repair(stores.node(), b2.group())).as("a plain diff is the node's too").isEqualTo(Outcome.DONE);

        RowReconcile.EntryState older = entry(BY_LENGTH, lengthKey(1, "k"));
        assertThat(Tids.uuid(older.deleted())).isEqualTo(tid(10));
        assertThat(older.deletedTimestamp()).as("written at TS(newer)").isEqualTo(WriteTimestamps.of(tid(10)));
        assertThat(matches(lengthKey(1, "k"))).isFalse();
        assertThat(matches(lengthKey(2, "k"))).isTrue();
        assertThat(stores.indexWrites()).containsExactly(new TablePlan.MarkDeleted(BY_LENGTH, lengthKey(1, "k"), Tids.bytes(tid(10)),
                WriteTimestamps.of(tid(10))));
        assertThat(stores.sent).as("a diff sends nothing at once").noneMatch(MemoryStores.Sent::now);
        assertThat(counters.diffs.sum()).isEqualTo(1);
        assertThat(counters.markedDeleted.sum()).isEqualTo(1);
        assertThat(counters.upserts.sum()).isZero();
        assertThat(counters.perIndex.get("wiki.revisions/by_length")[0].sum()).isEqualTo(1);
    }

    @Test
    void should_retry_and_write_nothing_when_the_marked_version_is_not_visible_yet() {
        insert(version("k", tid(0), 1, "a")).land();
        MemoryTrigger.Batch b2 = insert(version("k", tid(10), 2, "b"));
        b2.entries().forEach(Runnable::run); // its entries landed, its base row not yet

        assertThat(repair(stores, b2.group())).isEqualTo(Outcome.RETRY);
        assertThat(repair(stores.node(), b2.group())).isEqualTo(Outcome.RETRY);
        assertThat(stores.sent).isEmpty();
        assertThat(counters.diffs.sum()).isZero();

        b2.base().run();
        assertThat(repair(stores, b2.group())).isEqualTo(Outcome.DONE);
        assertThat(matches(lengthKey(1, "k"))).isFalse();
    }

    @Test
    void should_recompute_with_the_rows_table_first_when_a_version_is_deleted_on_the_service() {
        twoVersions();
        int before = stores.sent.size();
        MemoryTrigger.Batch delete = trigger.deleteVersion(List.of(text("k")), tid(10), (T0 + 20) * 1000L);
        delete.land();

        assertThat(repair(stores, delete.group())).isEqualTo(Outcome.AGAIN);
        List<MemoryStores.Sent> sent = stores.sent.subList(before, stores.sent.size());
        assertThat(sent).hasSize(2);
        assertThat(sent.get(0).now()).as("_w raised at once, before the corrections").isTrue();
        RowsWrite.RecordRecompute raised = (RowsWrite.RecordRecompute) sent.get(0).rows().get(0);
        assertThat(sent.get(1).now()).isFalse();
        assertThat(sent.get(1).index()).allMatch(w -> w.timestamp() <= raised.ts());
        assertThat(matches(lengthKey(1, "k"))).as("v1 is the newest version again").isTrue();
        assertThat(matches(lengthKey(2, "k"))).as("the first pass leaves an entry of a version it does not see").isTrue();

        assertThat(repair(stores, delete.group().withUnseenGone())).isEqualTo(Outcome.AGAIN);
        assertThat(matches(lengthKey(2, "k"))).as("the pass a second later takes it for gone").isFalse();
        assertThat(stores.entries.exists(BY_TID, List.of(Tids.bytes(tid(10)), text("k")))).isFalse();
        assertThat(stores.entries.exists(BY_TID, List.of(Tids.bytes(tid(0)), text("k")))).isTrue();
        assertThat(stores.records.record(List.of(text("k"))).join().written()).isEqualTo(
                stores.sent.stream().filter(MemoryStores.Sent::now).flatMap(s -> s.rows().stream())
                        .mapToLong(r -> ((RowsWrite.RecordRecompute) r).ts()).max().orElseThrow());
    }

    @Test
    void should_hand_off_and_write_nothing_when_a_version_is_deleted_on_the_node() {
        twoVersions();
        int before = stores.sent.size();
        long diffs = counters.diffs.sum();
        MemoryTrigger.Batch delete = trigger.deleteVersion(List.of(text("k")), tid(10), (T0 + 20) * 1000L);
        delete.land();

        assertThat(repair(stores.node(), delete.group())).isEqualTo(Outcome.HANDOFF);
        assertThat(stores.sent).hasSize(before);
        assertThat(counters.diffs.sum()).isEqualTo(diffs);
        assertThat(matches(lengthKey(2, "k"))).isTrue();
    }

    @Test
    void should_recompute_on_the_service_and_hand_off_on_the_node_when_a_version_expires() {
        insert(version("k", tid(0), 1, "a")).land();
        Version v2 = version("k", tid(10), 2, "b");
        MemoryTrigger.Batch b2 = trigger.write(v2, true, WriteTimestamps.of(v2.tid()) / 10, 1);
        b2.land();
        assertThat(b2.group().recompute()).as("a write with a TTL is recomputed, not diffed").isTrue();
        assertThat(repair(stores.node(), b2.group())).isEqualTo(Outcome.HANDOFF);
        assertThat(repair(stores, b2.group())).isEqualTo(Outcome.AGAIN);
        assertThat(matches(lengthKey(2, "k"))).isTrue();
        int before = stores.sent.size();

        now = b2.expiryDue();
        MarkerGroup expiry = MarkerGroup.coalesce(List.of(b2.expiry())).get(0);
        assertThat(stores.base.versions(List.of(text("k")), ReadLevel.READ)).extracting(Version::tid).containsExactly(tid(0));
        assertThat(repair(stores.node(), expiry)).isEqualTo(Outcome.HANDOFF);
        assertThat(stores.sent).hasSize(before);
        assertThat(repair(stores, expiry)).isEqualTo(Outcome.AGAIN);
        assertThat(repair(stores, expiry.withUnseenGone())).isEqualTo(Outcome.AGAIN);
        assertThat(matches(lengthKey(1, "k"))).isTrue();
        assertThat(matches(lengthKey(2, "k"))).isFalse();
    }

    @Test
    void should_recompute_on_the_service_and_hand_off_on_the_node_when_an_update_carries_a_projection_alone() {
        twoVersions();
        // UPDATE ... SET value = 'c' of v1: partial, and its projection ties with the stored one at TS(v1)
        Version partial = new Version(new ByteBuffer[] {text("k"), Tids.bytes(tid(0)), null, text("c")}, 1, bits(0, 1, 3));
        MemoryTrigger.Batch b = trigger.write(partial, false, (T0 + 100) * 1000L, 0);
        b.land();
        assertThat(b.group().flags()).isEqualTo(QueueLayout.FLAG_PARTIAL | QueueLayout.FLAG_DELETE);
        int before = stores.sent.size();

        assertThat(repair(stores.node(), b.group())).isEqualTo(Outcome.HANDOFF);
        assertThat(stores.sent).hasSize(before);
        assertThat(repair(stores, b.group())).isEqualTo(Outcome.AGAIN);
        assertThat(stores.sent.get(before).now()).isTrue();
        assertThat(entry(BY_LENGTH, lengthKey(1, "k")).proj()).containsExactly(text("c"));
    }

    @Test
    void should_upsert_every_version_read_when_a_write_left_entries_undone() {
        insert(version("k", tid(0), 1, "a")).land();
        // UPDATE ... SET length = 2 of a new version: its projection not carried, so its entry is not complete
        Version partial = new Version(new ByteBuffer[] {text("k"), Tids.bytes(tid(10)), varint(2), null}, 1, bits(0, 1, 2));
        MemoryTrigger.Batch b = trigger.write(partial, false, WriteTimestamps.of(tid(10)) / 10, 0);
        b.land();
        assertThat(b.group().flags()).isEqualTo(QueueLayout.FLAG_PARTIAL);

        assertThat(repair(stores, b.group())).as("a diff that upserts too, not a recompute").isEqualTo(Outcome.DONE);
        assertThat(stores.indexWrites()).filteredOn(w -> w instanceof TablePlan.Upsert).hasSize(4); // by_length and by_tid of v1 and v2
        assertThat(matches(lengthKey(1, "k"))).isFalse();
        assertThat(counters.upserts.sum()).isEqualTo(4);
    }

    @Test
    void should_read_at_the_read_level_first_then_at_serial_and_upsert_when_the_write_was_conditional() {
        insert(version("k", tid(0), 1, "a")).land();
        Marker cas = trigger.marker(List.of(text("k")), tid(10), tid(10), QueueLayout.FLAG_CAS);
        MarkerGroup g = MarkerGroup.coalesce(List.of(cas)).get(0);
        assertThat(repair(stores, g)).as("not committed yet: waited for").isEqualTo(Outcome.RETRY);
        assertThat(stores.base.levels).as("while the client's Paxos round may run, no SERIAL read contends with it").containsOnly(ReadLevel.READ);
        stores.base.levels.clear();

        // a conditional write: the trigger adds nothing to it (no entries, no rows-table record), the service indexes it
        stores.base.write(version("k", tid(10), 2, "b"), true, WriteTimestamps.of(tid(10)) / 10, 0).run();
        g = g.withSerial();
        assertThat(repair(stores, g)).isEqualTo(Outcome.DONE);
        assertThat(stores.base.levels).containsOnly(ReadLevel.SERIAL);
        assertThat(matches(lengthKey(2, "k"))).isTrue();
        assertThat(matches(lengthKey(1, "k"))).isFalse();
        counters.counted(g);
        assertThat(counters.casWrites.sum()).isEqualTo(1);
    }

    @Test
    void should_recompute_on_the_service_and_hand_off_on_the_node_when_two_versions_share_a_tick() {
        insert(version("k", tid(0), 1, "a")).land();
        MemoryTrigger.Batch b2 = insert(version("k", tid(10, 1), 2, "b"));
        MemoryTrigger.Batch b3 = insert(version("k", tid(10, 2), 1, "c")); // the same 100-ns tick: their cells tie at one TS
        b2.land();
        b3.land();

        assertThat(repair(stores.node(), b3.group())).isEqualTo(Outcome.HANDOFF);
        assertThat(stores.sent).isEmpty();
        assertThat(repair(stores, b3.group())).isEqualTo(Outcome.AGAIN);
        assertThat(stores.sent.get(0).now()).isTrue();
        assertThat(repair(stores, b3.group().withUnseenGone())).isEqualTo(Outcome.AGAIN);
        assertThat(matches(lengthKey(1, "k"))).isTrue();
        assertThat(Tids.uuid(entry(BY_LENGTH, lengthKey(1, "k")).tid())).isEqualTo(tid(10, 2));
        assertThat(matches(lengthKey(2, "k"))).isFalse();
    }

    @Test
    void should_recompute_and_count_a_rewrite_when_a_version_is_written_again_with_another_key() {
        insert(version("k", tid(0), 1, "a")).land();
        MemoryTrigger.Batch first = insert(version("k", tid(10), 2, "b"));
        first.land();
        assertThat(repair(stores, first.group())).isEqualTo(Outcome.DONE);
        // the same version written again within the second, with another length: a plain marker
        Version again = version("k", tid(10), 1, "b");
        MemoryTrigger.Batch rewrite = trigger.write(again, true, WriteTimestamps.of(tid(10)) / 10 + 500_000, 0);
        rewrite.land();
        assertThat(rewrite.group().flags()).isZero();
        int before = stores.sent.size();

        assertThat(repair(stores.node(), rewrite.group())).isEqualTo(Outcome.HANDOFF);
        assertThat(stores.sent).hasSize(before);
        assertThat(counters.rewrites.sum()).isEqualTo(1);
        assertThat(repair(stores, rewrite.group())).isEqualTo(Outcome.AGAIN);
        assertThat(counters.rewrites.sum()).isEqualTo(2);
        assertThat(repair(stores, rewrite.group().withUnseenGone())).as("_w is at v2's TS now: recomputed again").isEqualTo(Outcome.AGAIN);
        assertThat(counters.rewrites.sum()).isEqualTo(3);
        assertThat(matches(lengthKey(1, "k"))).isTrue();
        assertThat(matches(lengthKey(2, "k"))).as("the rewritten version no longer has length 2").isFalse();

        // _w is above v2 now: a diff of it would write below the corrections
        MemoryTrigger.Batch retry = insert(version("k", tid(10), 1, "b"));
        retry.land();
        assertThat(repair(stores.node(), retry.group())).isEqualTo(Outcome.HANDOFF);
    }

    @Test
    void should_recompute_every_row_of_the_partition_when_the_group_is_the_whole_partition() {
        twoVersions();
        insert(version("j", tid(30), 2, "c")).land();
        int before = stores.sent.size();
        MemoryTrigger.Batch delete = trigger.deletePartition(List.of(text("k")), (T0 + 40) * 1000L);
        delete.land();
        MarkerGroup g = delete.group();
        assertThat(g.wholePartition()).isTrue();

        assertThat(repair(stores.node(), g)).isEqualTo(Outcome.HANDOFF);
        assertThat(stores.sent).hasSize(before);
        assertThat(repair(stores, g)).isEqualTo(Outcome.AGAIN);
        assertThat(repair(stores, g.withUnseenGone())).isEqualTo(Outcome.AGAIN);
        assertThat(matches(lengthKey(1, "k"))).isFalse();
        assertThat(matches(lengthKey(2, "k"))).isFalse();
        assertThat(matches(lengthKey(2, "j"))).as("another partition").isTrue();
        counters.counted(g);
        assertThat(counters.deletes.sum()).isEqualTo(1);
    }

    @Test
    void should_write_what_the_per_row_reads_write_when_plain_groups_are_prefetched() {
        List<MarkerGroup> groups = new ArrayList<>();
        for (String key : List.of("a", "b", "c")) {
            for (int i = 0; i <= VersionedTable.PREFETCH_VERSIONS; i++) { // one more than a prefetch reads
                MemoryTrigger.Batch b = insert(version(key, tid(10 * i + key.charAt(0)), i % 3, key + i));
                b.land();
                groups.add(b.group());
            }
        }
        MarkerGroup missing = insert(version("a", tid(500), 2, "late")).group(); // not visible: read alone, retried
        groups.add(missing);
        VersionedTableTest alone = new VersionedTableTest();
        for (MarkerGroup g : groups) {
            Version v = stores.base.versions(List.of(g.pk()), ReadLevel.READ).stream().filter(x -> x.tid().equals(g.tidMax())).findFirst()
                    .orElse(null);
            if (v != null) {
                alone.insert(v).land();
            }
        }

        TableKind kind = TableKind.of(PLAN, stores.node(), counters);
        Map<MarkerGroup, TableKind.Prefetched> pre = kind.prefetch(groups);
        assertThat(counters.prefetched.sum()).isEqualTo(groups.size());
        assertThat(pre.get(groups.get(0)).versions()).as("the oldest version: its neighbourhood is cut off").isNull();
        assertThat(pre.get(groups.get(VersionedTable.PREFETCH_VERSIONS)).versions().get(1).has(3)).as("the newest versions read their key attributes only").isFalse();
        List<Outcome> prefetched = new ArrayList<>();
        List<Outcome> perRow = new ArrayList<>();
        for (MarkerGroup g : groups) {
            prefetched.add(kind.repair(g, pre.get(g), stores.sink()));
            perRow.add(alone.repair(alone.stores.node(), g));
        }
        assertThat(prefetched).isEqualTo(perRow).endsWith(Outcome.RETRY).containsOnly(Outcome.DONE, Outcome.RETRY);
        assertThat(stores.indexWrites()).isNotEmpty().containsExactlyElementsOf(alone.stores.indexWrites());
    }

    @Test
    void should_read_every_row_alone_when_rows_are_not_whole_partitions() {
        TablePlan plan = TablePlan.of(Definitions.parse("""
                {
                  "keyspace": "ks", "table": "docs",
                  "attributes": { "shard": "string", "doc": "string", "tid": "timeuuid", "status": "string" },
                  "index": [ { "type": "hash", "attribute": "shard" }, { "type": "range", "attribute": "doc" },
                             { "type": "range", "order": "desc", "attribute": "tid" } ],
                  "secondaryIndexes": { "by_status": [ { "type": "hash", "attribute": "status" } ] }
                }
                """, "docs.json"));
        MemoryStores docs = MemoryStores.of(plan, () -> now);
        MemoryTrigger t = new MemoryTrigger(docs, () -> now);
        List<MarkerGroup> groups = new ArrayList<>();
        for (String doc : List.of("d1", "d2")) {
            for (int i = 0; i < 2; i++) {
                MemoryTrigger.Batch b = t.write(new Version(new ByteBuffer[] {text("s"), text(doc), Tids.bytes(tid(i * 10 + doc.length())),
                    text(doc + i)}, 2), true, (T0 + i * 10) * 1000L, 0);
                b.land();
                groups.add(b.group());
            }
        }
        TableKind kind = TableKind.of(plan, docs, counters);
        assertThat(kind.prefetch(groups)).isEmpty();
        for (MarkerGroup g : groups) {
            assertThat(kind.repair(g, null, docs.sink())).isEqualTo(Outcome.DONE);
        }
        IndexPlan byStatus = plan.indexes().get(0);
        assertThat(docs.entries.entryState(byStatus, List.of(text("d10"), text("s"), text("d1"))).matches()).isFalse();
        assertThat(docs.entries.entryState(byStatus, List.of(text("d11"), text("s"), text("d1"))).matches()).isTrue();

        MemoryTrigger.Batch delete = t.deletePartition(List.of(text("s")), (T0 + 100) * 1000L);
        delete.land();
        assertThat(kind.repair(delete.group(), null, docs.sink())).isEqualTo(Outcome.AGAIN);
        assertThat(kind.repair(delete.group().withUnseenGone(), null, docs.sink())).isEqualTo(Outcome.AGAIN);
        for (String doc : List.of("d1", "d2")) {
            assertThat(docs.entries.entryState(byStatus, List.of(text(doc + "1"), text("s"), text(doc))).matches()).as(doc).isFalse();
        }
    }

    static BitSet bits(int... attributes) {
        BitSet out = new BitSet();
        Arrays.stream(attributes).forEach(out::set);
        return out;
    }
}
