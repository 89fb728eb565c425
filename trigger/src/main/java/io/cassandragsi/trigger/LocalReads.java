package io.cassandragsi.trigger;

import java.util.concurrent.atomic.LongAdder;
import org.apache.cassandra.cql3.QueryOptions;
import org.apache.cassandra.cql3.QueryProcessor;
import org.apache.cassandra.cql3.statements.SelectStatement;
import org.apache.cassandra.db.ConsistencyLevel;
import org.apache.cassandra.db.Keyspace;
import org.apache.cassandra.db.ReadQuery;
import org.apache.cassandra.db.SinglePartitionReadQuery;
import org.apache.cassandra.locator.AbstractReplicationStrategy;
import org.apache.cassandra.locator.Replica;
import org.apache.cassandra.locator.TokenMetadata;
import org.apache.cassandra.service.StorageService;
import org.apache.cassandra.utils.FBUtilities;

/**
 * When the in-node maintainer may read this node's replica alone (docs/design.md section 7.8):
 * the consistency level needs one replica's answer, it is not serial, and this node holds a full
 * replica of every partition the select names. A read of one replica through {@code StorageProxy}
 * would then ask this same replica, through the read stage and a serialized response; reading it
 * on the calling thread gives the same rows without either. With RF=1 that is every maintainer
 * read; at RF=3 and LOCAL_QUORUM, none.
 */
final class LocalReads {
    /** Selects answered from this node's replica on the maintainer's thread (JMX: LocalReads). */
    static final LongAdder COUNT = new LongAdder();

    private LocalReads() {}

    static boolean suffice(SelectStatement select, QueryOptions options) {
        ConsistencyLevel cl = options.getConsistency();
        if (cl == null || cl.isSerialConsistency()) {
            return false;
        }
        AbstractReplicationStrategy strategy = Keyspace.open(select.keyspace()).getReplicationStrategy();
        if (cl.blockFor(strategy) != 1) {
            return false;
        }
        if (alone()) {
            COUNT.increment();
            return true; // every partition's only replica
        }
        ReadQuery query = select.getQuery(options, options.getNowInSeconds(QueryProcessor.internalQueryState()));
        if (!(query instanceof SinglePartitionReadQuery.Group<?> group)) {
            return false; // a range read: through StorageProxy
        }
        for (SinglePartitionReadQuery q : group.queries) {
            Replica self = strategy.getNaturalReplicasForToken(q.partitionKey()).selfIfPresent();
            if (self == null || !self.isFull()) {
                return false;
            }
        }
        COUNT.increment();
        return true;
    }

    /** Whether this node is the only one the cluster knows (a joining node has its host id before it owns a range). */
    private static boolean alone() {
        TokenMetadata ring = StorageService.instance.getTokenMetadata();
        return ring.getSizeOfAllEndpoints() == 1 && ring.isMember(FBUtilities.getBroadcastAddressAndPort());
    }
}
