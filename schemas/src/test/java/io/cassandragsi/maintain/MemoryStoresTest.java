package io.cassandragsi.maintain;

import static io.cassandragsi.maintain.VersionedTableTest.T0;
import static io.cassandragsi.maintain.VersionedTableTest.text;
import static io.cassandragsi.maintain.VersionedTableTest.tid;
import static io.cassandragsi.maintain.VersionedTableTest.varint;
import static io.cassandragsi.maintain.VersionedTableTest.version;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cassandragsi.index.RowReconcile;
import io.cassandragsi.index.Tids;
import io.cassandragsi.index.WriteTimestamps;
import java.nio.ByteBuffer;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The in-memory twins keep what the storage interfaces' Javadoc promises, with Cassandra's last-write-wins. */
class MemoryStoresTest {
    long now = T0;
    final MemoryStores versioned = MemoryStores.of(VersionedTableTest.PLAN, () -> now);
    final MemoryStores unversioned = MemoryStores.of(UnversionedTableTest.PLAN, () -> now);
    final List<ByteBuffer> k = List.of(text("k"));

    void land(Version v, long w) {
        versioned.base.write(v, true, w, 0).run();
    }

    @Test
    void should_read_the_version_before_those_in_range_and_the_one_after_when_a_neighbourhood_is_asked() {
        for (int i = 0; i < 5; i++) {
            land(version("k", tid(10 * i), i, "v" + i), T0 * 1000L);
        }
        land(version("j", tid(25), 9, "other row"), T0 * 1000L);

        assertThat(versioned.base.neighbourhood(k, tid(20), tid(30), ReadLevel.READ)).extracting(Version::tid)
                .containsExactly(tid(10), tid(20), tid(30), tid(40));
        assertThat(versioned.base.neighbourhood(k, tid(0), tid(0), ReadLevel.READ)).extracting(Version::tid).containsExactly(tid(0), tid(10));
        assertThat(versioned.base.neighbourhood(k, tid(45), tid(45), ReadLevel.SERIAL)).extracting(Version::tid).containsExactly(tid(40));
        assertThat(versioned.base.levels).containsExactly(ReadLevel.READ, ReadLevel.READ, ReadLevel.SERIAL);
    }

    @Test
    void should_read_only_the_key_attributes_newest_first_when_the_newest_versions_of_many_rows_are_asked() {
        for (int i = 0; i < 4; i++) {
            land(version("k", tid(10 * i), i, "v" + i), T0 * 1000L);
        }
        Map<ByteBuffer, List<Version>> newest = versioned.base.newest(List.of(text("k"), text("none")), 3).join();

        assertThat(newest).containsOnlyKeys(text("k"));
        List<Version> k3 = newest.get(text("k"));
        assertThat(k3).extracting(Version::tid).containsExactly(tid(30), tid(20), tid(10));
        assertThat(k3.get(0).has(2)).as("length, a key attribute").isTrue();
        assertThat(k3.get(0).get(2)).isEqualTo(varint(3));
        assertThat(k3.get(0).has(3)).as("value, a projection").isFalse();
        assertThat(k3.get(0).get(3)).isNull();
        assertThatThrownBy(() -> versioned.base.newest(Collections.nCopies(51, text("k")), 3)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void should_keep_cassandra_tie_rules_when_two_writes_of_a_version_share_a_timestamp() {
        land(version("k", tid(0), 1, "b"), T0 * 1000L);
        land(version("k", tid(0), 1, "a"), T0 * 1000L); // the greater value wins the tie
        assertThat(versioned.base.versions(k, ReadLevel.READ).get(0).get(3)).isEqualTo(text("b"));
        land(version("k", tid(0), null, "b"), T0 * 1000L); // a tombstone wins the tie
        assertThat(versioned.base.versions(k, ReadLevel.READ).get(0).get(2)).isNull();
        versioned.base.deleteVersion(k, tid(0), T0 * 1000L).run(); // a row delete shadows its own timestamp
        assertThat(versioned.base.versions(k, ReadLevel.READ)).isEmpty();
    }

    @Test
    void should_read_write_times_and_whole_seconds_left_when_an_unversioned_row_has_cells_with_a_ttl() {
        List<ByteBuffer> u = List.of(text("u"));
        unversioned.current.write(u, UnversionedTableTest.cells("email", "a@x", "name", "n"), false, T0 * 1000L, 10).run();
        unversioned.current.write(u, UnversionedTableTest.cells("country", "fr"), false, T0 * 1000L + 5, 0).run();
        now = T0 + 2_500;

        RowReconcile.BaseCell[] cells = unversioned.current.row(u, ReadLevel.READ).cells().cells();
        assertThat(cells[0]).isEqualTo(RowReconcile.BaseCell.key(text("u")));
        assertThat(cells[1]).isEqualTo(new RowReconcile.BaseCell(text("a@x"), T0 * 1000L, 8));
        assertThat(cells[2]).isEqualTo(new RowReconcile.BaseCell(text("fr"), T0 * 1000L + 5, 0));
        assertThat(cells[3]).isEqualTo(RowReconcile.BaseCell.DEAD);
        now = T0 + 10_000;
        assertThat(unversioned.current.row(u, ReadLevel.READ).cells().cells()[1]).as("expired").isEqualTo(RowReconcile.BaseCell.DEAD);
        unversioned.current.deleteRow(u, T0 * 1000L + 5).run();
        assertThat(unversioned.current.row(u, ReadLevel.READ).cells().cells()).containsExactly(unversioned.current.absent(u).cells().cells());
        assertThat(unversioned.current.partition(u, ReadLevel.READ)).isEmpty();
    }

    @Test
    void should_read_a_record_as_the_rows_table_holds_it_when_the_trigger_and_the_core_wrote_it() {
        MemoryRecords rows = versioned.records;
        long ts = WriteTimestamps.of(tid(0));
        rows.recordKey(k, "by_length", List.of(varint(1), text("k")), ts, false);
        rows.recordKey(k, "by_tid", List.of(Tids.bytes(tid(0)), text("k")), ts, true);
        rows.recordNewest(k, T0 * 1000L, ts);
        assertThat(rows.record(k).join().rewrittenAt()).isEqualTo(Long.MIN_VALUE);
        rows.recordNewest(k, T0 * 1000L + 7, ts); // the same version written again, at another timestamp
        rows.apply(new RowsWrite.RecordRecompute(k, ts + 3));
        rows.apply(new RowsWrite.AddKeys(k, Map.of("by_length", List.of(List.of(varint(2), text("k")))), 0));

        RowRecord r = rows.record(k).join();
        assertThat(r.rewrittenAt()).isEqualTo(ts);
        assertThat(r.written()).isEqualTo(ts + 3);
        assertThat(r.keyTimes("by_length")).containsEntry(List.of(varint(1), text("k")), ts).containsEntry(List.of(varint(2), text("k")), 0L);
        assertThat(r.versionKeys("by_tid")).containsOnlyKeys(List.of(Tids.bytes(tid(0)), text("k")));
        assertThat(rows.records(List.of(text("k"), text("none"))).join().get(text("k")).versionKeys()).as("not read in batches").isEmpty();

        rows.apply(new RowsWrite.ForgetVersionKeys(k, Map.of("by_tid", Map.of(List.of(Tids.bytes(tid(0)), text("k")), ts - 1))));
        assertThat(rows.record(k).join().versionKeys("by_tid")).as("a forget shadows only the write time it names").hasSize(1);
        rows.apply(new RowsWrite.ForgetVersionKeys(k, Map.of("by_tid", Map.of(List.of(Tids.bytes(tid(0)), text("k")), ts))));
        assertThat(rows.record(k).join().versionKeys("by_tid")).isEmpty();
        assertThat(rows.record(List.of(text("none"))).join()).isNull();
    }
}
