package io.cassandragsi.trigger;

import io.cassandragsi.tables.Selected;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.apache.cassandra.cql3.CQLStatement;
import org.apache.cassandra.cql3.QueryOptions;
import org.apache.cassandra.cql3.QueryProcessor;
import org.apache.cassandra.cql3.statements.SelectStatement;
import org.apache.cassandra.db.ConsistencyLevel;
import org.apache.cassandra.transport.Dispatcher;
import org.apache.cassandra.transport.messages.ResultMessage;
import org.apache.cassandra.utils.FBUtilities;

/**
 * Selects through Cassandra's own read path at a consistency level, from inside the node: the
 * statement parsed once (Cassandra's cache of internal statements, dropped on schema changes),
 * executed without the native protocol. Where this node's replica alone answers the consistency
 * level ({@link LocalReads}), the statement reads it on the calling thread; otherwise through
 * {@code StorageProxy} like a client's read. Blocks the calling thread: only for the maintainer's
 * own threads, never a Cassandra stage or request thread (docs/notes: a blocking StorageProxy call
 * there can stall the node).
 */
final class NodeCql {
    private NodeCql() {}

    /** The rows of a select (bounded: a limit, or a single row), each by column position. */
    static List<Selected> select(String cql, ConsistencyLevel cl, ByteBuffer... values) {
        CQLStatement statement = QueryProcessor.prepareInternal(cql).statement;
        for (int i = 0; i < values.length; i++) {
            values[i] = comparable(values[i]);
        }
        QueryOptions options = QueryOptions.forInternalCallsWithNowInSec(FBUtilities.nowInSeconds(), cl, List.of(values));
        ResultMessage result = statement instanceof SelectStatement select && LocalReads.suffice(select, options)
                ? select.executeLocally(QueryProcessor.internalQueryState(), options)
                : statement.execute(QueryProcessor.internalQueryState(), options, Dispatcher.RequestTime.forImmediateExecution());
        List<Selected> out = new ArrayList<>();
        if (result instanceof ResultMessage.Rows rows) {
            for (List<ByteBuffer> row : rows.result.rows) {
                out.add(row::get);
            }
        }
        return out;
    }

    /**
     * The value as a buffer Cassandra can compare: a read-only heap buffer (no array, not direct)
     * would be read as direct memory at address 0 and crash the node (docs/design.md section 7.8).
     */
    static ByteBuffer comparable(ByteBuffer v) {
        if (v == null || v.hasArray() || v.isDirect()) {
            return v;
        }
        ByteBuffer copy = ByteBuffer.allocate(v.remaining());
        copy.put(v.duplicate()).flip();
        return copy;
    }

    static ByteBuffer bigint(long v) {
        return ByteBuffer.allocate(8).putLong(0, v);
    }

    static ByteBuffer integer(int v) {
        return ByteBuffer.allocate(4).putInt(0, v);
    }
}
