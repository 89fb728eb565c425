package io.cassandragsi.index.oracle;

import static org.assertj.core.api.Assertions.assertThat;

import io.cassandragsi.index.Tids;
import io.cassandragsi.maintain.Marker;
import io.cassandragsi.maintain.MarkerGroup;
import io.cassandragsi.maintain.MemoryEntries;
import io.cassandragsi.maintain.MemoryTrigger;
import io.cassandragsi.maintain.NextStep;
import io.cassandragsi.maintain.Outcome;
import io.cassandragsi.maintain.RepairCounters;
import io.cassandragsi.maintain.TableKind;
import io.cassandragsi.maintain.Version;
import io.cassandragsi.maintain.Writes;
import io.cassandragsi.oracle.IndexOracle;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Histories where {@link RandomHistoryTest} found the index and its oracle disagreeing for good,
 * each reduced to its few steps and run in a fixed order through the same twins and trigger
 * ({@link VersionedWorld}, {@link UnversionedWorld}) and the repair core on the service's storage. Each test
 * asserts what Cassandra's base table says the index should hold. Each is a divergence since fixed in the
 * repair core, kept as its regression test; its interleaving runs in {@code RandomHistoryTest}. A new one
 * found is added here disabled, listed in docs/limits.md, until fixed.
 */
class KnownDivergencesTest {
    private static final long T0 = RandomHistoryTest.START_MILLIS;

    /**
     * The service's next step after {@code first} ({@link NextStep#after}, the rule the service runs):
     * the pass a second later when it schedules one, nothing when the group is finished. The
     * oracle's assertions then judge what the index holds, whatever the first pass returned.
     */
    private static void passAgainIfDue(UnversionedWorld w, MarkerGroup g, Outcome first) {
        NextStep next = NextStep.after(g, first, 0, 1_000);
        if (!next.kind().finished()) {
            w.repair(next.group(), w.stores);
        }
    }

    private static ByteBuffer text(String s) {
        return VersionedWorld.text(s);
    }

    /**
     * A version written {@code USING TTL}, then written again (same tid, later client timestamp)
     * without a TTL. The base keeps the version (the second write's cells win); its {@code by_tid}
     * entry was written twice at the version's TS, once expiring, once not, and Cassandra keeps the
     * expiring row marker on that tie. Once it expires the entry is gone, and the recompute at the
     * expiry writes the entry again at the same TS ({@code TablePlan.diff} of the version, {@code
     * VersionRecompute.perVersion} has nothing to add: the version did not go away), losing the
     * same tie, and so does the pass a second later unless a correction of a {@code by_length}
     * entry of the row raised its {@code _w} above that TS. Now the recompute reads whether the
     * entries of the remaining versions are there, and writes one that reads as absent above its TS
     * (docs/design.md section 4.6).
     */
    @Test
    void should_keep_the_per_version_entry_when_a_version_written_with_a_ttl_is_written_again_without_one() {
        VersionedWorld w = new VersionedWorld(new Random(1), T0, Maintainers.Mode.SERVICE);
        UUID tid = Tids.fromTicks(T0 * 10_000L, 1L);
        // no length: no by_length entry, whose correction at the expiry would raise the row's _w and make the pass a
        // second later write the by_tid entry above it (as happens when the by_length entry is this version's own)
        Version v = VersionedWorld.version(new ByteBuffer[] {text("k"), Tids.bytes(tid), null, text("a")}, false);
        MemoryTrigger.Batch first = w.batch(v, T0 * 1000L, 10); // INSERT ... USING TTL 10
        first.base().run();
        first.entries().forEach(Runnable::run);
        w.now = T0 + 500;
        MemoryTrigger.Batch again = w.batch(v, T0 * 1000L + 500_000L, 0); // the same version, no TTL, half a second later
        again.base().run();
        again.entries().forEach(Runnable::run);
        w.repair(first.marker());
        w.repair(again.marker());
        w.now = first.expiryDue(); // the expiry marker: the service recomputes the row, then once more a second later
        w.repair(first.expiry());
        w.now += 1_000;
        w.repair(MarkerGroup.coalesce(List.of(first.expiry())).get(0).withUnseenGone());

        assertThat(w.versions(text("k"))).as("the base keeps the version: the second write's cells do not expire").hasSize(1);
        List<ByteBuffer> entry = List.of(Tids.bytes(tid), text("k"));
        assertThat(w.stores.entries.exists(VersionedWorld.BY_TID, entry)).as("the version's by_tid entry").isTrue();
    }

    /**
     * Two writes of an unversioned row: W1 at T sets country 'de', W2 sets 'fr' with a client
     * timestamp two seconds older (it loses in the base). W2's batch lands its base row and
     * rows-table record, and a reconcile of the row runs before W2's index entry lands: the
     * recorded key of W2 is more than a second older than the row's newest write and its entry
     * reads as absent, so {@code RowReconcile.settled} lets the rows table forget it. Then the entry
     * lands: it matches ({@code _tid} of W2, no mark), and no later reconcile reads it (it reads
     * only recorded keys and the current one). README's Limits say a write still in flight is never
     * a second old; a client timestamp can be. Now a key whose entry shows nothing after its
     * recording is forgotten only a minute on ({@code RowReconcile.UNSEEN_SETTLE_MICROS},
     * docs/design.md section 6.7), by which time the entry has landed and been marked.
     */
    @Test
    void should_leave_no_entry_of_a_losing_write_when_its_client_timestamp_is_old_and_its_entry_lands_late() {
        UnversionedWorld w = new UnversionedWorld(new Random(1), T0 + 2_000, Maintainers.Mode.SERVICE);
        long t = (T0 + 2_000) * 1000L;
        ByteBuffer id = text("u");
        MemoryTrigger.Batch w1 = w.batch(id, cells("country", text("de"), "age", UnversionedWorld.int4(20)), false, t, 0);
        w1.base().run();
        w1.entries().forEach(Runnable::run);
        w.now += 10;
        MemoryTrigger.Batch w2 = w.batch(id, cells("country", text("fr"), "age", UnversionedWorld.int4(20)), false, t - 2_000_000L, 0);
        w2.base().run(); // W2's base row and rows-table record; its entry is still landing
        w.repair(w2.marker());
        w2.entries().forEach(Runnable::run); // the entry lands
        w.now += 1_000;
        w.repair(w1.marker());
        w.repair(w2.marker());
        MemoryTrigger.Batch w3 = w.batch(id, cells("name", text("n")), false, t + 1_000_000L, 0); // a later write of the row
        w3.base().run();
        w3.entries().forEach(Runnable::run);
        w.repair(w3.marker());

        assertThat(w.value(id, "country")).isEqualTo(text("de"));
        List<ByteBuffer> stale = List.of(text("fr"), UnversionedWorld.int4(20), id);
        MemoryEntries.Read e = w.stores.entries.read(UnversionedWorld.PLAN.indexes().get(1), stale);
        assertThat(IndexOracle.matches(e.tid(), e.deleted(), null)).as("by_country entry (fr, 20, u): the row's country is de").isFalse();
    }

    /**
     * An unversioned row written with email 'a@x' and a null name (W1), then with email 'a@x' and
     * name 'n1' (W2). W2's index entry lands before its base row, and a reconcile of the row runs in
     * between (W1's marker): the base shows no name, the entry does, so {@code RowReconcile}
     * deletes the entry's projection at exactly the timestamp of W2's cell (a tombstone wins the
     * tie). When W2's base row lands, every later reconcile writes 'n1' at that same timestamp, and
     * loses the tie to that tombstone: the entry matches without its projection for good. (A mark
     * of such an entry is held back by {@code shownUpTo}; a projection's delete was not.) Now a
     * projection written after every write the rows table shows is left to its write's own marker
     * (docs/design.md section 4.3).
     */
    @Test
    void should_keep_the_projection_of_a_write_whose_entry_lands_before_its_base_row() {
        UnversionedWorld w = new UnversionedWorld(new Random(1), T0, Maintainers.Mode.SERVICE);
        long t = T0 * 1000L;
        ByteBuffer id = text("u");
        MemoryTrigger.Batch w1 = w.batch(id, cells("email", text("a@x"), "name", null), false, t, 0);
        w1.base().run();
        w1.entries().forEach(Runnable::run);
        w.now += 100;
        MemoryTrigger.Batch w2 = w.batch(id, cells("email", text("a@x"), "name", text("n1")), false, t + 100_000L, 0);
        w2.entries().forEach(Runnable::run); // W2's entry lands first
        w.repair(w1.marker());
        w2.base().run(); // then its base row
        w.now += 100;
        w.repair(w2.marker());
        w.now += 1_000;
        w.repair(w2.marker());

        assertThat(w.value(id, "name")).isEqualTo(text("n1"));
        MemoryEntries.Read e = w.stores.entries.read(UnversionedWorld.PLAN.indexes().get(0), List.of(text("a@x"), id));
        assertThat(IndexOracle.matches(e.tid(), e.deleted(), null)).isTrue();
        assertThat(e.proj()).as("by_email entry (a@x, u): its projection of name").containsExactly(text("n1"));
    }

    /**
     * The case above with a client timestamp two seconds older than the row's newest write: W1
     * writes email 'a@x' at T, W2 email 'a@x' and name 'n1' at T less two seconds (its name wins:
     * the row has no other). W2's entry lands before its base row and W2's own marker is
     * reconciled in between: the rows table's {@code _w} (W1's T) is above W2's timestamp, so
     * {@code shownUpTo} says nothing of W2, and its projection used to be deleted at its own
     * timestamp, for good. Now the first pass over a write older than the row's newest deletes none
     * of its projections; the pass a second later ({@code unseenGone}) deletes what the base still
     * lacks (docs/design.md section 4.3). The random histories land entries before and after their
     * base rows.
     */
    @Test
    void should_keep_the_projection_of_a_write_with_an_old_client_timestamp_whose_entry_lands_before_its_base_row() {
        UnversionedWorld w = new UnversionedWorld(new Random(1), T0 + 2_000, Maintainers.Mode.SERVICE);
        long t = (T0 + 2_000) * 1000L;
        ByteBuffer id = text("u");
        MemoryTrigger.Batch w1 = w.batch(id, cells("email", text("a@x")), false, t, 0);
        w1.land();
        w.repair(w1.marker());
        w.now += 10;
        MemoryTrigger.Batch w2 = w.batch(id, cells("email", text("a@x"), "name", text("n1")), false, t - 2_000_000L, 0);
        w2.entries().forEach(Runnable::run); // W2's entry lands first
        MarkerGroup g2 = MarkerGroup.coalesce(List.of(w2.marker())).get(0);
        Outcome first = w.repair(g2, w.stores);
        assertThat(first).isEqualTo(Outcome.AGAIN);
        w2.base().run(); // then its base row
        w.now += 1_000;
        passAgainIfDue(w, g2, first); // the pass a second later, if the service's own rule schedules one

        assertThat(w.value(id, "name")).isEqualTo(text("n1"));
        MemoryEntries.Read e = w.stores.entries.read(UnversionedWorld.PLAN.indexes().get(0), List.of(text("a@x"), id));
        assertThat(IndexOracle.matches(e.tid(), e.deleted(), null)).isTrue();
        assertThat(e.proj()).as("by_email entry (a@x, u): its projection of name").containsExactly(text("n1"));
    }

    /**
     * A write that loses a tie: W3 writes email 'b@x' at the client timestamp of W2's 'c@x' (the
     * greater value, 'c@x', wins the base), and its batch lands its base row (with the rows table's
     * record of 'b@x') before its entry. The entry (b@x, u) is there already from an old write: its
     * {@code _tid} expired with that write's TTL, its {@code _deleted} stayed. A reconcile reading it
     * then saw a recorded key whose entry does not match and left it: once W3's entry landed, it
     * matched for good, a row the base does not have. Now a key the group's own write recorded whose
     * entry shows no {@code _tid} of that write makes the reconcile come back a second later, which
     * marks it (docs/design.md section 6.6).
     */
    @Test
    void should_mark_the_entry_of_a_write_that_loses_a_tie_when_it_lands_after_the_reconcile_over_an_old_mark() {
        UnversionedWorld w = new UnversionedWorld(new Random(1), T0, Maintainers.Mode.SERVICE);
        long t = T0 * 1000L;
        ByteBuffer id = text("u");
        MemoryTrigger.Batch w0 = w.batch(id, cells("email", text("b@x")), false, t, 1); // expires in a second
        w0.land();
        w.repair(w0.marker());
        w.now += 100;
        MemoryTrigger.Batch w1 = w.batch(id, cells("email", text("a@x")), false, t + 100_000L, 0);
        w1.land();
        w.repair(w1.marker()); // marks (b@x, u)
        w.now += 3_000; // its _tid has expired, its _deleted has not
        MemoryTrigger.Batch w2 = w.batch(id, cells("email", text("c@x")), false, t + 3_100_000L, 0);
        w2.land();
        w.repair(w2.marker());
        w.now += 10;
        MemoryTrigger.Batch w3 = w.batch(id, cells("email", text("b@x")), false, t + 3_100_000L, 0); // ties with W2, loses
        w3.base().run();
        MarkerGroup g3 = MarkerGroup.coalesce(List.of(w3.marker())).get(0);
        Outcome first = w.repair(g3, w.stores);
        assertThat(first).as("its own entry may still be landing").isEqualTo(Outcome.AGAIN);
        w3.entries().forEach(Runnable::run);
        w.now += 1_000;
        passAgainIfDue(w, g3, first); // the pass a second later, if the service's own rule schedules one

        assertThat(w.value(id, "email")).isEqualTo(text("c@x"));
        MemoryEntries.Read e = w.stores.entries.read(UnversionedWorld.PLAN.indexes().get(0), List.of(text("b@x"), id));
        assertThat(IndexOracle.matches(e.tid(), e.deleted(), null)).as("by_email entry (b@x, u): the row's email is c@x").isFalse();
    }

    /**
     * An unversioned row whose {@code by_country} key has two cells: W1 writes country 'fr' and age
     * 20 with a TTL, W2 country 'fr' again 30 ms later (by its client timestamp) without one, and W3
     * age 20 again without a TTL, at a client timestamp between the two, landing last. A reconcile
     * between W2 and W3 writes the entry's {@code _tid} at ten times W2's timestamp (the newest key
     * cell) with the TTL of W1's age (the first key cell to expire); the reconcile after W3 writes
     * it at that same timestamp without a TTL, and the expiring cell wins the tie: when it expires the
     * entry stops matching, though the row keeps both key cells for good. Now the reconcile reads
     * {@code TTL(_tid)} and writes a {@code _tid} that must stop expiring a tick above the expiring
     * one ({@code RowReconcile.tidAt}, docs/design.md section 4.3).
     */
    @Test
    void should_keep_the_entry_when_a_key_cell_that_expires_is_written_again_without_a_ttl_below_the_newest_key_cell() {
        UnversionedWorld w = new UnversionedWorld(new Random(1), T0, Maintainers.Mode.SERVICE);
        long t = T0 * 1000L;
        ByteBuffer id = text("u");
        MemoryTrigger.Batch w1 = w.batch(id, cells("country", text("fr"), "age", UnversionedWorld.int4(20)), false, t, 5);
        w1.base().run();
        w1.entries().forEach(Runnable::run);
        w.now += 30;
        MemoryTrigger.Batch w2 = w.batch(id, cells("country", text("fr")), false, t + 30_000L, 0);
        w2.base().run();
        w2.entries().forEach(Runnable::run);
        w.repair(w2.marker()); // sees age with its TTL: _tid at 10 x (t + 30 ms), expiring
        w.now += 10;
        MemoryTrigger.Batch w3 = w.batch(id, cells("age", UnversionedWorld.int4(20)), false, t + 10_000L, 0);
        w3.base().run();
        w3.entries().forEach(Runnable::run);
        w.repair(w3.marker()); // age without a TTL now: _tid at the same timestamp, not expiring
        w.now += 1_000;
        w.repair(w3.marker());
        w.now = T0 + 10_000; // W1's cells have expired; W2's and W3's have not

        assertThat(w.value(id, "country")).isEqualTo(text("fr"));
        assertThat(w.value(id, "age")).isEqualTo(UnversionedWorld.int4(20));
        MemoryEntries.Read e = w.stores.entries.read(UnversionedWorld.PLAN.indexes().get(1), List.of(text("fr"), UnversionedWorld.int4(20), id));
        assertThat(IndexOracle.matches(e.tid(), e.deleted(), null)).as("by_country entry (fr, 20, u): the row has country fr and age 20").isTrue();
    }

    /**
     * Two versions of row k in one 100-ns tick T (two writers' tids), B then C. C's batch lands its
     * base row with its rows-table record ({@code by_tid}'s key of C in {@code _vkeys}, written at T)
     * but not yet its entries, and C is deleted. The recompute of the delete finds C's key recorded
     * at T, the TS of B, a remaining version: {@code VersionRecompute.perVersion} takes it for the key
     * of a version shown (rewritten), not of one in flight, and judges it in the first pass already.
     * Its entry read as absent (still landing), and the key was forgotten at once; then C's entry
     * landed, and no recompute found it again. Now a key is forgotten only once a pass deleted its
     * entry (and recorded the key again above its version's TS, the mark of that): this pass deletes
     * the entry, which lands below that delete, and the pass a second later forgets the key
     * (docs/design.md section 6.5).
     */
    @Test
    void should_remove_the_per_version_entry_of_a_deleted_version_when_it_shares_a_tick_and_its_entry_lands_late() {
        VersionedWorld w = new VersionedWorld(new Random(1), T0, Maintainers.Mode.SERVICE);
        UUID b = Tids.fromTicks(T0 * 10_000L, 1L);
        UUID c = Tids.fromTicks(T0 * 10_000L, 2L); // the same tick: the same TS
        long t = T0 * 1000L;
        MemoryTrigger.Batch vb = w.batch(VersionedWorld.version(new ByteBuffer[] {text("k"), Tids.bytes(b), VersionedWorld.varint(1), text("b")}, false), t, 0);
        vb.land();
        w.repair(vb.marker());
        w.now += 50;
        MemoryTrigger.Batch vc = w.batch(VersionedWorld.version(new ByteBuffer[] {text("k"), Tids.bytes(c), VersionedWorld.varint(2), text("c")}, false),
                t + 50_000L, 0);
        vc.base().run(); // C's base row and rows-table record; its entries still landing
        w.now += 10;
        MemoryTrigger.Batch delete = w.trigger.deleteVersion(List.of(text("k")), c, t + 60_000L);
        delete.land();
        assertThat(w.repair(delete.marker())).isEqualTo(Outcome.AGAIN);
        vc.entries().forEach(Runnable::run); // C's entries land
        w.now += 1_000;
        w.repair(MarkerGroup.coalesce(List.of(delete.marker())).get(0).withUnseenGone());

        assertThat(w.versions(text("k"))).extracting(Version::tid).containsExactly(b);
        assertThat(w.stores.entries.exists(VersionedWorld.BY_TID, List.of(Tids.bytes(c), text("k")))).as("the by_tid entry of C, deleted").isFalse();
    }

    /**
     * The same cause in the pass a second later: version A of row k is deleted, and the recompute
     * of that delete runs ({@code AGAIN}). Before its pass a second later, version D is written and
     * at once deleted: D's base row and rows-table record (its {@code by_tid} key in {@code _vkeys})
     * landed, its entries not yet. The pass takes what the base does not show for gone ({@code
     * unseenGone}), finds D's entry absent and used to forget its key in the same pass: D's entry
     * landed, and the recomputes of D's own delete no longer found it. Now that pass deletes D's
     * entry, and a later one forgets the key.
     */
    @Test
    void should_remove_the_per_version_entry_of_a_version_deleted_while_its_batch_lands_when_a_pass_a_second_later_runs() {
        VersionedWorld w = new VersionedWorld(new Random(1), T0, Maintainers.Mode.SERVICE);
        long t = T0 * 1000L;
        UUID a = Tids.fromTicks(T0 * 10_000L, 1L);
        MemoryTrigger.Batch va = w.batch(VersionedWorld.version(new ByteBuffer[] {text("k"), Tids.bytes(a), VersionedWorld.varint(1), text("a")}, false), t, 0);
        va.land();
        w.repair(va.marker());
        w.now += 100;
        MarkerGroup deleteA = MarkerGroup.coalesce(List.of(landed(w.trigger.deleteVersion(List.of(text("k")), a, t + 100_000L)))).get(0);
        assertThat(w.repair(deleteA)).isEqualTo(Outcome.AGAIN);
        w.now += 1_000;
        UUID d = Tids.fromTicks((T0 + 1_100) * 10_000L, 1L);
        MemoryTrigger.Batch vd = w.batch(VersionedWorld.version(new ByteBuffer[] {text("k"), Tids.bytes(d), VersionedWorld.varint(2), text("d")}, false),
                t + 1_100_000L, 0);
        vd.base().run(); // D's base row and rows-table record; its entries still landing
        w.now += 5;
        MarkerGroup deleteD = MarkerGroup.coalesce(List.of(landed(w.trigger.deleteVersion(List.of(text("k")), d, t + 1_105_000L)))).get(0);
        w.repair(deleteA.withUnseenGone()); // A's pass a second later
        vd.entries().forEach(Runnable::run); // D's entries land
        w.now += 100;
        w.repair(deleteD);
        w.now += 1_000;
        w.repair(deleteD.withUnseenGone());

        assertThat(w.versions(text("k"))).isEmpty();
        assertThat(w.stores.entries.exists(VersionedWorld.BY_TID, List.of(Tids.bytes(d), text("k")))).as("the by_tid entry of D, deleted").isFalse();
    }

    private static Marker landed(MemoryTrigger.Batch delete) {
        delete.land();
        return delete.marker();
    }

    /**
     * Two writes of an unversioned row at one client timestamp T (two clients, or an application's
     * own {@code USING TIMESTAMP}): W1 sets country 'fr', W2 country 'de', age 20 both; the base keeps
     * 'fr' (of two cells at one timestamp the greater value wins). The in-node maintainer takes W2's
     * marker 10 ms after the trigger offered it, before W2's batch lands: the rows table's {@code _w}
     * is T already (W1's), so {@code UnversionedTable} takes W2 for visible, reconciles the row without
     * it (its key not recorded yet, its entry not written yet) and returns DONE, not AGAIN. Then W2's
     * batch lands: its {@code by_country} entry (de, 20, u) is mirrored at T and matches, its key is
     * recorded, and no marker is left to mark it. The service's storage does the same, but it reads a
     * marker some 50 ms after its batch. Now the trigger writes its marker's id beside {@code _w}
     * ({@code _wid}, which the tie leaves W1's), and a reconcile whose {@code _w} equals its write's
     * timestamp but names another write runs once more a second later (docs/design.md section 6.6).
     */
    @Test
    void should_mark_the_entry_of_a_write_that_lost_a_timestamp_tie_when_the_node_reads_its_marker_before_its_batch_lands() {
        UnversionedWorld w = new UnversionedWorld(new Random(1), T0, Maintainers.Mode.NODE);
        long t = T0 * 1000L;
        ByteBuffer id = text("u");
        MemoryTrigger.Batch w1 = w.batch(id, cells("country", text("fr"), "age", UnversionedWorld.int4(20)), false, t, 0);
        w1.land();
        assertThat(w.repair(w1.marker(), w.stores.node())).isEqualTo(Outcome.DONE);
        w.now += 50;
        MemoryTrigger.Batch w2 = w.batch(id, cells("country", text("de"), "age", UnversionedWorld.int4(20)), false, t, 0); // the same timestamp
        w.now += 10; // the node's settle: W2's batch has not landed
        MarkerGroup g = MarkerGroup.coalesce(List.of(w2.marker())).get(0);
        assertThat(w.repair(g, w.stores.node())).as("_w is T, but _wid names W1: once more a second later").isEqualTo(Outcome.AGAIN);
        w2.land();
        w.now += 1_000;
        w.repair(g.withUnseenGone(), w.stores.node());

        assertThat(w.value(id, "country")).isEqualTo(text("fr"));
        MemoryEntries.Read e = w.stores.entries.read(UnversionedWorld.PLAN.indexes().get(1), List.of(text("de"), UnversionedWorld.int4(20), id));
        assertThat(IndexOracle.matches(e.tid(), e.deleted(), null)).as("by_country entry (de, 20, u): the row's country is fr").isFalse();
    }

    /**
     * Row u is written {@code name = n0} with a TTL of 1 s at client timestamp T; once that cell has
     * expired, it is written again at the same T with {@code country}, {@code age} and {@code name =
     * n3}. On that tie the expired cell (a tombstone) wins: the base's name is null. The node
     * reconciled the second write before its batch's entries landed: it read no {@code by_country}
     * entry, so it could not delete the entry's name at T, and left the projection unwritten; the
     * trigger's entry then landed with n3 at T and kept it (RandomHistoryTest seed
     * 7668627602597910283). Now a reconcile that leaves a projection of its own write's entry
     * unwritten while that entry shows no {@code _tid} of the write passes again a second later
     * (docs/design.md section 6.6), and that pass deletes the value at T.
     */
    @Test
    void should_delete_the_projection_a_tie_with_an_expired_cell_took_when_the_node_reconciles_before_the_entry_lands() {
        UnversionedWorld w = new UnversionedWorld(new Random(1), T0, Maintainers.Mode.NODE);
        long t = T0 * 1000L;
        ByteBuffer id = text("u");
        MemoryTrigger.Batch w1 = w.batch(id, cells("name", text("n0")), false, t, 1);
        w1.land();
        w.now += 2_000; // the name cell has expired
        MemoryTrigger.Batch w2 = w.batch(id, cells("country", text("de"), "age", UnversionedWorld.int4(21), "name", text("n3")), true, t, 0);
        w2.base().run(); // the base mutation (with the rows table's record) lands first
        w.now += 10;
        MarkerGroup g = MarkerGroup.coalesce(List.of(w2.marker())).get(0);
        Outcome first = w.repair(g, w.stores.node());
        assertThat(first).as("its entry has not landed: once more a second later").isEqualTo(Outcome.AGAIN);
        w2.entries().forEach(Runnable::run);
        w.now += 1_000;
        w.repair(g.withUnseenGone(), w.stores.node());

        assertThat(w.value(id, "name")).as("the expired cell wins the tie at T").isNull();
        MemoryEntries.Read e = w.stores.entries.read(UnversionedWorld.PLAN.indexes().get(1), List.of(text("de"), UnversionedWorld.int4(21), id));
        assertThat(IndexOracle.matches(e.tid(), e.deleted(), null)).as("by_country entry (de, 21, u) matches").isTrue();
        assertThat(e.proj()).as("its name, as the base's").containsOnlyNulls();
    }

    /**
     * The in-node maintainer and the repair service reconcile one unversioned row at once (the node
     * takes the plain markers, the service the flagged ones). W1 gives row u the {@code by_country}
     * key (fr, 20), W2 moves it to (de, 20); two seconds later W3 (plain) is reconciled by the node,
     * which finds (fr, 20) recorded over a second before the row's newest write and its entry marked,
     * so it forgets the key ({@code RowReconcile.settled}): a rows-table write sent with its others,
     * after the reconcile. Before it lands, W4 ({@code UPDATE ... SET country = 'fr'}, partial: the
     * service's) gives the row (fr, 20) again, and the service, reading (fr, 20) still recorded,
     * wrote its entry without recording the key again; the node's forget landed then, and when W5 moved
     * the row to (de, 20) again, no reconcile read (fr, 20): its entry matched for good. Now the service
     * records a current key again when its element is older than its key cells (W1's, here), above the
     * rows table's {@code _w}, which the forget at W1's time cannot shadow (docs/design.md section 6.7).
     */
    @Test
    void should_mark_the_entry_of_a_key_the_node_forgets_while_the_service_writes_it_again() {
        long t = T0 * 1000L;
        ByteBuffer id = text("u");
        UnversionedWorld w = movedFromFrToDe(id);
        w.now += 2_000;
        MemoryTrigger.Batch w3 = insert(w, id, "de", t + 2_100_000L);
        w3.land();
        List<Runnable> nodeWrites = new ArrayList<>(); // the node's writes, sent once its turn is computed
        TableKind.of(UnversionedWorld.PLAN, w.stores.node(), new RepairCounters()).repair(MarkerGroup.coalesce(List.of(w3.marker())).get(0), null,
                holding(w, nodeWrites));
        MemoryTrigger.Batch w4 = w.batch(id, cells("country", text("fr")), false, t + 2_110_000L, 0);
        w4.land();
        assertThat(w.repair(w4.marker())).as("the service, meanwhile: it makes the marked entry match again").isEqualTo(Outcome.AGAIN);
        nodeWrites.forEach(Runnable::run); // the node's forget lands
        w.now += 1_000;
        MemoryTrigger.Batch w5 = w.batch(id, cells("country", text("de")), false, t + 3_110_000L, 0);
        w5.land();
        w.repair(w5.marker());

        assertThat(w.value(id, "country")).isEqualTo(text("de"));
        MemoryEntries.Read e = w.stores.entries.read(UnversionedWorld.PLAN.indexes().get(1), List.of(text("fr"), UnversionedWorld.int4(20), id));
        assertThat(IndexOracle.matches(e.tid(), e.deleted(), null)).as("by_country entry (fr, 20, u): the row's country is de").isFalse();
    }

    /**
     * The same two maintainers, the other way round: the service's reconcile of W3 ({@code UPDATE ...
     * SET country = 'fr'}, partial) makes the marked entry of (fr, 20) match again, and before its
     * writes land the node reconciles W4 (plain, back to (de, 20)), reads that entry still marked, and
     * leaves it. Then the service's writes land: (fr, 20) matches, and W4's marker is done. The
     * service's reconcile returns AGAIN because it made an entry match that did not as read, and its
     * pass a second later marks it (docs/design.md section 6.6).
     */
    @Test
    void should_mark_the_entry_one_maintainer_makes_match_while_the_other_reconciles_a_later_write() {
        long t = T0 * 1000L;
        ByteBuffer id = text("u");
        UnversionedWorld w = movedFromFrToDe(id);
        w.now += 100;
        MemoryTrigger.Batch w3 = w.batch(id, cells("country", text("fr")), false, t + 200_000L, 0);
        w3.land();
        List<Runnable> serviceWrites = new ArrayList<>(); // the service's writes, sent once its step is computed
        MarkerGroup g3 = MarkerGroup.coalesce(List.of(w3.marker())).get(0);
        TableKind service = TableKind.of(UnversionedWorld.PLAN, w.stores, new RepairCounters());
        assertThat(service.repair(g3, null, holding(w, serviceWrites))).as("it makes the marked entry of (fr, 20) match again")
                .isEqualTo(Outcome.AGAIN);
        w.now += 10;
        assertThat(insertByNode(w, id, "de", t + 210_000L)).isEqualTo(Outcome.DONE); // the node, meanwhile
        serviceWrites.forEach(Runnable::run); // the service's writes land
        w.now += 1_000;
        service.repair(g3.withUnseenGone(), null, w.sink(w.stores)); // the service's pass a second later

        assertThat(w.value(id, "country")).isEqualTo(text("de"));
        MemoryEntries.Read e = w.stores.entries.read(UnversionedWorld.PLAN.indexes().get(1), List.of(text("fr"), UnversionedWorld.int4(20), id));
        assertThat(IndexOracle.matches(e.tid(), e.deleted(), null)).as("by_country entry (fr, 20, u): the row's country is de").isFalse();
    }

    /**
     * Two writes of an unversioned row, W1 (country de, age 21) then W2 (country fr, age 21), whose
     * markers one turn of a maintainer coalesces into one group, tids W1..W2 (the node takes them 10
     * ms after the trigger; the service coalesces them too). W1's base row and rows-table record have
     * landed, its entry not yet. The reconcile finds (de, 21) recorded, its entry absent, so nothing
     * to mark. The rows table's {@code _w} is W2's, later than the group's oldest write, so {@code
     * UnversionedTable} returns AGAIN, as W1's marker alone would (it once judged the group by its
     * newest write and returned DONE: W1's entry then landed and matched for good); the pass a second
     * later marks W1's entry.
     */
    @Test
    void should_mark_the_entry_of_the_older_write_when_a_group_coalesces_two_writes_and_its_entry_lands_late() {
        UnversionedWorld w = new UnversionedWorld(new Random(1), T0, Maintainers.Mode.NODE);
        long t = T0 * 1000L;
        ByteBuffer id = text("u");
        MemoryTrigger.Batch w1 = w.batch(id, cells("country", text("de"), "age", UnversionedWorld.int4(21)), true, t, 0);
        w1.base().run(); // its entry still landing
        w.now += 20;
        MemoryTrigger.Batch w2 = w.batch(id, cells("country", text("fr"), "age", UnversionedWorld.int4(21)), true, t + 20_000L, 0);
        w2.land();
        w.now += 10;
        MarkerGroup both = MarkerGroup.coalesce(List.of(w1.marker(), w2.marker())).get(0);
        TableKind node = TableKind.of(UnversionedWorld.PLAN, w.stores.node(), new RepairCounters());
        assertThat(node.repair(both, null, w.sink(w.stores))).as("an older write of the group may still be landing").isEqualTo(Outcome.AGAIN);
        w1.entries().forEach(Runnable::run);
        w.now += 1_000;
        node.repair(both.withUnseenGone(), null, w.sink(w.stores)); // its pass a second later

        assertThat(w.value(id, "country")).isEqualTo(text("fr"));
        MemoryEntries.Read e = w.stores.entries.read(UnversionedWorld.PLAN.indexes().get(1), List.of(text("de"), UnversionedWorld.int4(21), id));
        assertThat(IndexOracle.matches(e.tid(), e.deleted(), null)).as("by_country entry (de, 21, u): the row's country is fr").isFalse();
    }

    /** In node mode, row {@code id} inserted with (fr, 20) at T0, then (de, 20) 100 ms later, each reconciled by the node. */
    private static UnversionedWorld movedFromFrToDe(ByteBuffer id) {
        UnversionedWorld w = new UnversionedWorld(new Random(1), T0, Maintainers.Mode.NODE);
        insertByNode(w, id, "fr", T0 * 1000L);
        w.now += 100;
        insertByNode(w, id, "de", T0 * 1000L + 100_000L);
        return w;
    }

    /** An insert of row {@code id}: email a@x, {@code country}, age 20, at client timestamp {@code ts}. */
    private static MemoryTrigger.Batch insert(UnversionedWorld w, ByteBuffer id, String country, long ts) {
        return w.batch(id, cells("email", text("a@x"), "country", text(country), "age", UnversionedWorld.int4(20)), true, ts, 0);
    }

    /** {@link #insert}, landed whole, and its marker reconciled by the in-node maintainer. */
    private static Outcome insertByNode(UnversionedWorld w, ByteBuffer id, String country, long ts) {
        MemoryTrigger.Batch b = insert(w, id, country, ts);
        b.land();
        return w.repair(b.marker(), w.stores.node());
    }

    /** A sink that holds a repair's writes in {@code held}, to land when the test says. */
    private static Writes.Sink holding(UnversionedWorld w, List<Runnable> held) {
        return (index, rows) -> {
            index.forEach(x -> held.add(() -> w.stores.apply(x)));
            rows.forEach(x -> held.add(() -> w.stores.apply(x)));
        };
    }

    private static Map<String, ByteBuffer> cells(Object... kv) {
        Map<String, ByteBuffer> out = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            out.put((String) kv[i], (ByteBuffer) kv[i + 1]);
        }
        return out;
    }
}
