package io.cassandragsi.trigger;

import static org.assertj.core.api.Assertions.assertThat;

import io.cassandragsi.schema.Composite;
import io.cassandragsi.schema.CqlGenerator;
import io.cassandragsi.schema.Definitions;
import io.cassandragsi.schema.Index;
import io.cassandragsi.schema.NodeProgressLayout;
import io.cassandragsi.schema.QueueLayout;
import io.cassandragsi.schema.RowsLayout;
import io.cassandragsi.schema.TableDef;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import javax.management.ObjectName;
import org.apache.cassandra.config.Config;
import org.apache.cassandra.config.DataStorageSpec;
import org.apache.cassandra.config.DatabaseDescriptor;
import org.apache.cassandra.cql3.QueryOptions;
import org.apache.cassandra.cql3.QueryProcessor;
import org.apache.cassandra.cql3.UpdateParameters;
import org.apache.cassandra.cql3.statements.ModificationStatement;
import org.apache.cassandra.cql3.statements.schema.CreateTableStatement;
import org.apache.cassandra.db.Clustering;
import org.apache.cassandra.db.IMutation;
import org.apache.cassandra.db.Mutation;
import org.apache.cassandra.db.Slice;
import org.apache.cassandra.db.marshal.Int32Type;
import org.apache.cassandra.db.marshal.LongType;
import org.apache.cassandra.db.marshal.TimeUUIDType;
import org.apache.cassandra.db.marshal.UTF8Type;
import org.apache.cassandra.db.partitions.PartitionUpdate;
import org.apache.cassandra.db.rows.Cell;
import org.apache.cassandra.db.rows.Row;
import org.apache.cassandra.dht.Murmur3Partitioner;
import org.apache.cassandra.schema.KeyspaceMetadata;
import org.apache.cassandra.schema.KeyspaceParams;
import org.apache.cassandra.schema.Schema;
import org.apache.cassandra.schema.TableMetadata;
import org.apache.cassandra.schema.Tables;
import org.apache.cassandra.service.ClientState;
import org.apache.cassandra.utils.ByteBufferUtil;

/**
 * Cassandra's own schema and write objects in the test JVM, without a node: the configuration in
 * client mode (no directories, commit log or process), tables made from the project's own DDL and
 * loaded into {@link Schema#instance} offline, and CQL writes turned into the {@link PartitionUpdate}
 * a coordinator hands to a trigger, the way Cassandra's offline {@code CQLSSTableWriter} builds them.
 *
 * <p>The node's {@code max_mutation_size} is set to 1 MiB here (an operator's setting; by default it
 * is half of {@code commitlog_segment_size}, 16 MiB) so that the size tests stay small.
 */
final class OfflineCassandra {
    static final long MAX_MUTATION_SIZE = 1024 * 1024;
    private static final String PROJECT_KEYSPACE = QueueLayout.DEFAULT_KEYSPACE;
    private static boolean initialized;

    private OfflineCassandra() {}

    static synchronized void init() {
        if (!initialized) {
            DatabaseDescriptor.clientInitialization(true, () -> {
                Config config = new Config();
                config.max_mutation_size = new DataStorageSpec.IntKibibytesBound(MAX_MUTATION_SIZE / 1024 + "KiB");
                return config;
            });
            createTables(PROJECT_KEYSPACE, List.of(QueueLayout.createTable(PROJECT_KEYSPACE, QueueLayout.Settings.defaults()),
                    NodeProgressLayout.createTable(PROJECT_KEYSPACE, QueueLayout.Settings.defaults())));
            initialized = true;
        }
        assertThat(IMutation.MAX_MUTATION_SIZE).as("the node's max_mutation_size the trigger reads").isEqualTo(MAX_MUTATION_SIZE);
    }

    /** A definition's base table, rows table and index tables, as {@code schema apply} creates them. */
    static TableDef define(String definitionJson) {
        init();
        TableDef def = Definitions.parse(definitionJson, "test.json");
        List<String> ddl = new ArrayList<>();
        ddl.add(CqlGenerator.createBaseTable(def));
        if (RowsLayout.needed(def)) {
            ddl.add(RowsLayout.createTable(def));
        }
        for (Index index : def.indexes().values()) {
            ddl.add(CqlGenerator.createIndexTable(def, index));
        }
        createTables(def.keyspace(), ddl);
        return def;
    }

    /** Adds tables (CREATE TABLE statements) to a keyspace, creating it if needed. */
    static void createTables(String keyspace, List<String> createTableStatements) {
        List<TableMetadata> tables = new ArrayList<>();
        for (String cql : createTableStatements) {
            tables.add(CreateTableStatement.parse(cql, keyspace).partitioner(Murmur3Partitioner.instance).build());
        }
        Schema.instance.transform(schema -> {
            KeyspaceMetadata ks = schema.getNullable(keyspace);
            if (ks == null) {
                ks = KeyspaceMetadata.create(keyspace, KeyspaceParams.simple(1), Tables.none());
            }
            Tables all = ks.tables;
            for (TableMetadata t : tables) {
                all = all.with(t);
            }
            return schema.withAddedOrUpdated(ks.withSwapped(all));
        });
    }

    static TableMetadata table(String keyspace, String name) {
        TableMetadata t = Schema.instance.getTableMetadata(keyspace, name);
        assertThat(t).as("table %s.%s", keyspace, name).isNotNull();
        return t;
    }

    /**
     * The update of one partition that a CQL write (INSERT, UPDATE or DELETE, {@code ?} bound to
     * {@code values}) makes, with the client's {@code USING TIMESTAMP / TTL} or the current time.
     */
    static PartitionUpdate update(String cql, ByteBuffer... values) {
        ClientState state = ClientState.forInternalCalls();
        ModificationStatement statement = QueryProcessor.parseStatement(cql, ModificationStatement.Parsed.class, "a write").prepare(state);
        QueryOptions options = values.length == 0 ? QueryOptions.DEFAULT : QueryOptions.forInternalCalls(List.of(values));
        List<ByteBuffer> keys = statement.buildPartitionKeyNames(options, state);
        assertThat(keys).as("one partition per write in these tests").hasSize(1);
        long nowMicros = System.currentTimeMillis() * 1000;
        UpdateParameters params = new UpdateParameters(statement.metadata, statement.updatedColumns(), state, options,
                statement.getTimestamp(nowMicros, options), options.getNowInSec((int) (nowMicros / 1_000_000)),
                statement.getTimeToLive(options), Collections.emptyMap());
        TableMetadata t = statement.metadata;
        PartitionUpdate.Builder builder = new PartitionUpdate.Builder(t, t.partitioner.decorateKey(keys.get(0)), t.regularAndStaticColumns(), 1);
        if (statement.hasSlices()) {
            for (Slice slice : statement.createSlices(options)) {
                statement.addUpdateForKey(builder, slice, params);
            }
        } else {
            for (Clustering<?> clustering : statement.createClustering(options, state)) {
                statement.addUpdateForKey(builder, clustering, params);
            }
        }
        return builder.build();
    }

    /** What the trigger returned, one partition update per mutation (the trigger makes no other). */
    static List<PartitionUpdate> updates(Collection<Mutation> out) {
        List<PartitionUpdate> updates = new ArrayList<>();
        if (out != null) {
            for (Mutation m : out) {
                assertThat(m.getPartitionUpdates()).hasSize(1);
                updates.addAll(m.getPartitionUpdates());
            }
        }
        return updates;
    }

    /** The updates of one table among what the trigger returned. */
    static List<PartitionUpdate> of(Collection<Mutation> out, String keyspace, String table) {
        return updates(out).stream().filter(u -> u.metadata().keyspace.equals(keyspace) && u.metadata().name.equals(table)).toList();
    }

    /** The one row of an update that the test expects to have exactly one. */
    static Row onlyRow(PartitionUpdate update) {
        List<Row> rows = new ArrayList<>();
        update.forEach(rows::add);
        assertThat(rows).as("rows of %s", update.metadata()).hasSize(1);
        return rows.get(0);
    }

    static String text(ByteBuffer utf8) {
        return UTF8Type.instance.compose(utf8);
    }

    static Cell<?> cell(Row row, TableMetadata table, String column) {
        return row.getCell(table.getColumn(ByteBufferUtil.bytes(column)));
    }

    /** TS(t) of the README's write-timestamp rule, computed here from the UUID's own timestamp. */
    static long ts(UUID tid) {
        return tid.timestamp() - 0x01B21DD213814000L;
    }

    /** A work-queue marker as the repair service reads it. */
    record Marker(int shard, long bucket, UUID id, String keyspace, String table, ByteBuffer pk, List<ByteBuffer> ck,
            UUID tidMin, UUID tidMax, int flags, int ttl) {
        boolean has(int flag) {
            return (flags & flag) == flag;
        }

        boolean wholePartition() {
            return ck.isEmpty() && tidMin == null && tidMax == null;
        }
    }

    static List<Marker> markers(Collection<Mutation> out) {
        List<Marker> markers = new ArrayList<>();
        for (PartitionUpdate u : of(out, PROJECT_KEYSPACE, QueueLayout.TABLE)) {
            TableMetadata q = u.metadata();
            List<ByteBuffer> key = Composite.decode(u.partitionKey().getKey());
            for (Row r : u) {
                Cell<?> flags = cell(r, q, QueueLayout.C_FLAGS);
                Cell<?> tidMin = cell(r, q, QueueLayout.C_TID_MIN);
                Cell<?> tidMax = cell(r, q, QueueLayout.C_TID_MAX);
                markers.add(new Marker(Int32Type.instance.compose(key.get(0)), LongType.instance.compose(key.get(1)),
                        TimeUUIDType.instance.compose(r.clustering().bufferAt(0)).asUUID(),
                        UTF8Type.instance.compose(cell(r, q, QueueLayout.C_KEYSPACE).buffer()),
                        UTF8Type.instance.compose(cell(r, q, QueueLayout.C_TABLE).buffer()),
                        cell(r, q, QueueLayout.C_PK).buffer(), Composite.decode(cell(r, q, QueueLayout.C_CK).buffer()),
                        tidMin == null ? null : TimeUUIDType.instance.compose(tidMin.buffer()).asUUID(),
                        tidMax == null ? null : TimeUUIDType.instance.compose(tidMax.buffer()).asUUID(),
                        Int32Type.instance.compose(flags.buffer()), flags.ttl()));
            }
        }
        return markers;
    }

    /** A counter of the trigger's JMX bean ({@code io.cassandragsi:type=Trigger}), as an operator reads it. */
    static long counter(String attribute) {
        try {
            return (Long) ManagementFactory.getPlatformMBeanServer().getAttribute(new ObjectName(TriggerMetrics.OBJECT_NAME), attribute);
        } catch (Exception e) {
            throw new AssertionError("cannot read " + attribute + " of " + TriggerMetrics.OBJECT_NAME, e);
        }
    }
}
