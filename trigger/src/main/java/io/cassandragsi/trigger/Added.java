package io.cassandragsi.trigger;

import io.cassandragsi.maintain.Marker;
import java.util.List;
import org.apache.cassandra.db.Mutation;

/**
 * What the trigger makes of one update: index and rows-table mutations, the markers for the repair
 * service (written apart on the CAS path), and the markers of the plain rows the in-node maintainer
 * took ({@code taken}: in atomic indexing they go to its epoch's shard in the batch; in eventual
 * indexing nowhere, docs/design.md section 7.11).
 */
record Added(List<Mutation> mutations, List<Mutation> markers, List<Marker> taken) {}
