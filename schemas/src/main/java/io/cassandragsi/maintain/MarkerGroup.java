package io.cassandragsi.maintain;

import io.cassandragsi.index.Tids;
import io.cassandragsi.schema.QueueLayout;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Markers of one versioned row (or one whole partition), coalesced: one sibling diff covers the
 * union of their tids. Pure.
 *
 * <p>{@code unseenGone}: whether a recompute takes an index entry that names a version the base
 * does not show for one whose version went away. A trigger's batch applies its mutations one by
 * one, so an entry can be read before its base row: the first recompute of a group leaves such
 * entries as they are, and its pass a little later ({@link #withUnseenGone}) treats them as gone.
 *
 * <p>{@code serial}: whether a conditional write's repair reads at the serial level. Its first
 * attempts, made while the client's own Paxos round may still run, read at the read level: a
 * write that round committed is visible there, and a SERIAL read then would only contend with it
 * (docs/design.md section 7.5). The worker sets it once the write's outcome can no longer be
 * decided by that round ({@link #withSerial}).
 */
public record MarkerGroup(String keyspace, String table, ByteBuffer pk, ByteBuffer ck, UUID tidMin, UUID tidMax,
        int flags, List<UUID> markerIds, UUID oldestMarker, boolean unseenGone, boolean serial) {

    /** A group whose conditional writes (if any) are read at the read level. */
    public MarkerGroup(String keyspace, String table, ByteBuffer pk, ByteBuffer ck, UUID tidMin, UUID tidMax, int flags, List<UUID> markerIds,
            UUID oldestMarker, boolean unseenGone) {
        this(keyspace, table, pk, ck, tidMin, tidMax, flags, markerIds, oldestMarker, unseenGone, false);
    }

    /** True for a whole-partition group (deletes, or an update the trigger could not read). */
    public boolean wholePartition() {
        return tidMin == null;
    }

    public boolean cas() {
        return (flags & QueueLayout.FLAG_CAS) != 0;
    }

    /** True when the row is recomputed from all its versions (a delete, an expiry, a rewrite), not diffed. */
    public boolean recompute() {
        return (flags & QueueLayout.FLAG_DELETE) != 0;
    }

    /**
     * This group, to be recomputed rather than diffed, because its version stayed invisible far
     * longer than a batch takes to land: versions the base does not show count as gone.
     */
    public MarkerGroup asRecompute() {
        return new MarkerGroup(keyspace, table, pk, ck, tidMin, tidMax, flags | QueueLayout.FLAG_DELETE, markerIds, oldestMarker, true, serial);
    }

    /** This group for a later pass, which takes versions the base does not show for gone. */
    public MarkerGroup withUnseenGone() {
        return new MarkerGroup(keyspace, table, pk, ck, tidMin, tidMax, flags, markerIds, oldestMarker, true, serial);
    }

    /** This group, its conditional writes read at the serial level from now on. */
    public MarkerGroup withSerial() {
        return new MarkerGroup(keyspace, table, pk, ck, tidMin, tidMax, flags, markerIds, oldestMarker, unseenGone, true);
    }

    /** The level a repair of this group reads the base at: SERIAL for a conditional write once {@link #serial}. */
    public ReadLevel baseReadLevel() {
        return cas() && serial ? ReadLevel.SERIAL : ReadLevel.READ;
    }

    /** The trigger left entries undone: upsert every version's entries, not just the diff. */
    public boolean upsertAll() {
        return (flags & (QueueLayout.FLAG_PARTIAL | QueueLayout.FLAG_CAS | QueueLayout.FLAG_DELETE)) != 0;
    }

    private record Key(String keyspace, String table, ByteBuffer pk, ByteBuffer ck, boolean whole) {}

    /** Coalesces markers by row, keeping first-seen order. */
    public static List<MarkerGroup> coalesce(List<Marker> markers) {
        Map<Key, MarkerGroup> groups = new LinkedHashMap<>();
        for (Marker m : markers) {
            boolean whole = m.tidMin() == null;
            ByteBuffer ck = whole ? ByteBuffer.allocate(0) : m.ck();
            Key key = new Key(m.keyspace(), m.table(), m.pk(), ck, whole);
            MarkerGroup g = groups.get(key);
            if (g == null) {
                List<UUID> ids = new ArrayList<>();
                ids.add(m.id());
                groups.put(key, new MarkerGroup(m.keyspace(), m.table(), m.pk(), ck, m.tidMin(), m.tidMax(), m.flags(), ids, m.id(), false));
            } else {
                g.markerIds.add(m.id());
                UUID min = whole ? null : (Tids.compare(m.tidMin(), g.tidMin) < 0 ? m.tidMin() : g.tidMin);
                UUID max = whole ? null : (Tids.compare(m.tidMax(), g.tidMax) > 0 ? m.tidMax() : g.tidMax);
                UUID oldest = Tids.compare(m.id(), g.oldestMarker) < 0 ? m.id() : g.oldestMarker;
                groups.put(key, new MarkerGroup(g.keyspace, g.table, g.pk, g.ck, min, max, g.flags | m.flags(), g.markerIds, oldest, false));
            }
        }
        return new ArrayList<>(groups.values());
    }
}
