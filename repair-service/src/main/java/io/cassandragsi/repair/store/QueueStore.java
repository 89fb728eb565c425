package io.cassandragsi.repair.store;

import io.cassandragsi.maintain.Marker;
import com.datastax.oss.driver.api.core.ConsistencyLevel;
import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import com.datastax.oss.driver.api.core.cql.Row;
import io.cassandragsi.schema.Cql;
import io.cassandragsi.schema.QueueLayout;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * The work queue the trigger writes (layout in {@link QueueLayout}): read only, by shard and time
 * bucket. The service never deletes markers; TTL and time-window compaction drop them whole.
 */
public final class QueueStore implements QueueReads {
    private final CqlSession session;
    private final PreparedStatement after;
    private final PreparedStatement between;
    private final PreparedStatement betweenInShards;
    private final PreparedStatement write;
    private final PreparedStatement idsAfter;
    private final PreparedStatement byIds;
    private final QueueLayout.Settings settings;
    private final String keyspace;

    public QueueStore(CqlSession session, String keyspace) {
        this.session = session;
        this.keyspace = keyspace;
        String table = Cql.qualified(keyspace, QueueLayout.TABLE);
        var meta = MissingTableException.requireMetadata(session, keyspace, QueueLayout.TABLE, "work queue");
        this.settings = QueueLayout.Settings.parseComment(meta.getOptions().getOrDefault(
                com.datastax.oss.driver.api.core.CqlIdentifier.fromCql("comment"), "{}").toString());
        this.after = session.prepare("SELECT id, keyspace_name, table_name, pk, ck, tid_min, tid_max, flags FROM " + table
                + " WHERE shard = ? AND bucket = ? AND id > ? LIMIT 5000");
        this.between = session.prepare("SELECT id, keyspace_name, table_name, pk, ck, tid_min, tid_max, flags FROM " + table
                + " WHERE shard = ? AND bucket = ? AND id > ? AND id <= ? LIMIT 5000");
        this.betweenInShards = session.prepare("SELECT shard, id, keyspace_name, table_name, pk, ck, tid_min, tid_max, flags FROM " + table
                + " WHERE shard IN ? AND bucket = ? AND id > ? AND id <= ? LIMIT " + READ_LIMIT);
        // the sweeps read ids only: a marker seen before costs its key, not its eight cells
        this.idsAfter = session.prepare("SELECT id FROM " + table + " WHERE shard = ? AND bucket = ? AND id > ? LIMIT 5000");
        this.byIds = session.prepare("SELECT id, keyspace_name, table_name, pk, ck, tid_min, tid_max, flags FROM " + table
                + " WHERE shard = ? AND bucket = ? AND id IN ?");
        this.write = session.prepare("INSERT INTO " + table
                + " (shard, bucket, id, keyspace_name, table_name, pk, ck, tid_min, tid_max, flags) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    }

    @Override
    public QueueLayout.Settings settings() {
        return settings;
    }

    public String keyspace() {
        return keyspace;
    }

    @Override
    public List<Marker> read(int shard, long bucket, UUID afterId, UUID upTo, ConsistencyLevel cl) {
        List<Marker> out = new ArrayList<>();
        var stmt = upTo == null ? after.bind(shard, bucket, afterId) : between.bind(shard, bucket, afterId, upTo);
        for (Row r : session.execute(stmt.setConsistencyLevel(cl).setPageSize(2000))) {
            out.add(new Marker(r.getUuid(0), r.getString(1), r.getString(2), r.getByteBuffer(3), r.getByteBuffer(4),
                    r.getUuid(5), r.getUuid(6), r.getInt(7)));
        }
        return out;
    }

    /** One query for every shard (the consumer's read of a poll tick, docs/design.md section 7.2). */
    @Override
    public Map<Integer, List<Marker>> readShards(Set<Integer> shards, long bucket, UUID afterId, UUID upTo, ConsistencyLevel cl) {
        Map<Integer, List<Marker>> out = new HashMap<>();
        shards.forEach(shard -> out.put(shard, new ArrayList<>()));
        int total = 0;
        var stmt = betweenInShards.bind(List.copyOf(shards), bucket, afterId, upTo).setConsistencyLevel(cl).setPageSize(2000);
        for (Row r : session.execute(stmt)) {
            out.get(r.getInt(0)).add(new Marker(r.getUuid(1), r.getString(2), r.getString(3), r.getByteBuffer(4), r.getByteBuffer(5),
                    r.getUuid(6), r.getUuid(7), r.getInt(8)));
            total++;
        }
        return total >= READ_LIMIT ? null : out; // each shard's part is in id order: the rows of a partition come in clustering order
    }

    @Override
    public List<UUID> readIds(int shard, long bucket, UUID afterId, ConsistencyLevel cl) {
        List<UUID> out = new ArrayList<>();
        for (Row r : session.execute(idsAfter.bind(shard, bucket, afterId).setConsistencyLevel(cl).setPageSize(READ_LIMIT + 1))) {
            out.add(r.getUuid(0));
        }
        return out;
    }

    @Override
    public List<Marker> readByIds(int shard, long bucket, List<UUID> ids, ConsistencyLevel cl) {
        if (ids.size() > 100) {
            throw new IllegalArgumentException(ids.size() + " marker ids asked for, at most 100 per query");
        }
        List<Marker> out = new ArrayList<>();
        for (Row r : session.execute(byIds.bind(shard, bucket, ids).setConsistencyLevel(cl).setPageSize(ids.size() + 1))) {
            out.add(new Marker(r.getUuid(0), r.getString(1), r.getString(2), r.getByteBuffer(3), r.getByteBuffer(4),
                    r.getUuid(5), r.getUuid(6), r.getInt(7)));
        }
        return out;
    }

    /** Queues a marker from the service itself (a consistent read that found an entry to repair). */
    public void enqueue(Marker m, long nowMillis, ConsistencyLevel cl) {
        int shard = QueueLayout.shardOf(m.keyspace(), m.table(), m.pk(), settings.shards());
        session.execute(write.bind(shard, settings.bucketOf(nowMillis), m.id(), m.keyspace(), m.table(), m.pk(), m.ck(),
                m.tidMin(), m.tidMax(), m.flags()).setConsistencyLevel(cl).setIdempotent(true));
    }
}
