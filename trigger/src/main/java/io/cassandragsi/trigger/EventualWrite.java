package io.cassandragsi.trigger;

import io.cassandragsi.maintain.Marker;
import io.cassandragsi.schema.Composite;
import io.cassandragsi.schema.QueueLayout;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.apache.cassandra.db.Mutation;

/**
 * One write of a table in eventual indexing, between the trigger's {@link Maintainer#eventual} and
 * its commit (docs/design.md section 7.11). Opening it put an item in the maintainer's unfinished
 * writes, so its progress record cannot pass the write until the write's mutations are sent and its
 * rows diffed. That item's marker names the whole partition, flagged for a recompute: it is what a
 * hand-off to the repair service writes when the mutations cannot be sent in time.
 */
final class EventualWrite implements NodeFeed.Eventual {
    private final Maintainer maintainer;
    private final MaintainerItem write;
    private final List<MaintainerItem> rows = new ArrayList<>(1);

    private EventualWrite(Maintainer maintainer, MaintainerItem write) {
        this.maintainer = maintainer;
        this.write = write;
    }

    /** Opens a write of partition {@code pk}: listed unfinished from now on. */
    static EventualWrite open(Maintainer maintainer, String keyspace, String table, ByteBuffer pk) {
        Marker whole = new Marker(Maintainer.newId(), keyspace, table, pk, Composite.encode(List.of()), null, null,
                QueueLayout.FLAG_PARTIAL | QueueLayout.FLAG_DELETE);
        MaintainerItem item = new MaintainerItem(whole, System.nanoTime(), true);
        maintainer.unfinished.put(whole.id(), item);
        return new EventualWrite(maintainer, item);
    }

    @Override
    public Marker offer(UUID id, String keyspace, String table, ByteBuffer pk, ByteBuffer ck, UUID tidMin, UUID tidMax, int flags) {
        Marker m = new Marker(id, keyspace, table, pk, ck, tidMin, tidMax, flags);
        rows.add(new MaintainerItem(m, System.nanoTime(), true));
        return m;
    }

    @Override
    public boolean commit(List<Mutation> mutations) {
        return maintainer.commit(write, mutations, rows);
    }

    @Override
    public void abandon() {
        maintainer.unfinished.remove(write.marker.id());
    }
}
