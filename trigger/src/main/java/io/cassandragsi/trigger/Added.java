package io.cassandragsi.trigger;

import java.util.List;
import org.apache.cassandra.db.Mutation;

/** What the trigger adds to one update: index and rows-table mutations, and the markers (written apart on the CAS path). */
record Added(List<Mutation> mutations, List<Mutation> markers) {}
