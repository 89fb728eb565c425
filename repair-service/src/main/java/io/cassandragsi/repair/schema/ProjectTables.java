package io.cassandragsi.repair.schema;

import io.cassandragsi.repair.jobs.JobsTable;
import io.cassandragsi.repair.store.CheckpointsTable;
import io.cassandragsi.repair.store.InstancesTable;
import io.cassandragsi.repair.store.LeasesTable;
import io.cassandragsi.repair.store.TriggerVersionsTable;
import io.cassandragsi.schema.NodeProgressLayout;
import io.cassandragsi.schema.QueueLayout;
import io.cassandragsi.schema.TriggerVersionsLayout;
import java.util.List;

/**
 * Every table of the project keyspace, as {@code schema apply} creates them: the work queue the
 * trigger writes, and the tables of the repair service and its jobs. Each statement comes from the
 * class that owns the table; the service and the jobs never create a table (their role needs no
 * {@code CREATE}) and refuse to start without theirs.
 */
public final class ProjectTables {
    private ProjectTables() {}

    /** One table: its name in the project keyspace, what it holds, and its {@code CREATE TABLE IF NOT EXISTS}. */
    public record Table(String name, String what, String cql) {}

    /** The work queue first, then the service's tables, in the order {@code schema apply} creates them. */
    public static List<Table> all(String keyspace, QueueLayout.Settings queue) {
        return List.of(
                new Table(QueueLayout.TABLE, "work queue", QueueLayout.createTable(keyspace, queue)),
                new Table(NodeProgressLayout.TABLE, "in-node maintainers' progress", NodeProgressLayout.createTable(keyspace, queue)),
                new Table(CheckpointsTable.TABLE, CheckpointsTable.WHAT, CheckpointsTable.createStatement(keyspace)),
                new Table(LeasesTable.TABLE, LeasesTable.WHAT, LeasesTable.createStatement(keyspace)),
                new Table(InstancesTable.TABLE, InstancesTable.WHAT, InstancesTable.createStatement(keyspace)),
                new Table(JobsTable.TABLE, JobsTable.WHAT, JobsTable.createStatement(keyspace)),
                new Table(io.cassandragsi.repair.store.BucketsTable.TABLE, io.cassandragsi.repair.store.BucketsTable.WHAT,
                        io.cassandragsi.repair.store.BucketsTable.createStatement(keyspace)),
                new Table(TriggerVersionsLayout.TABLE, TriggerVersionsTable.WHAT, TriggerVersionsLayout.createTable(keyspace)));
    }

    /**
     * The first checkpoint of every shard of a new queue: now, so that the first service to read a
     * shard starts where the queue began and skips no marker written before it ran (docs/design.md
     * section 7). Conditional: it never moves a checkpoint a service wrote.
     */
    public static List<String> initialRows(String keyspace, QueueLayout.Settings queue) {
        java.util.List<String> out = new java.util.ArrayList<>();
        for (int shard = 0; shard < queue.shards(); shard++) {
            out.add("INSERT INTO " + io.cassandragsi.schema.Cql.qualified(keyspace, CheckpointsTable.TABLE)
                    + " (shard, resume_from, updated_by) VALUES (" + shard + ", toTimestamp(now()), 'schema apply') IF NOT EXISTS;");
        }
        return out;
    }
}
