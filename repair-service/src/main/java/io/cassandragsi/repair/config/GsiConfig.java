package io.cassandragsi.repair.config;

import java.util.List;

/**
 * The repair service's configuration, in typed sections (read by {@link ConfigLoader}). The
 * defaults connect to a local node without credentials.
 */
public record GsiConfig(
        CassandraConfig cassandra, ConsistencyConfig consistency, QueueConfig queue, HttpConfig http) {

    public static GsiConfig defaults() {
        return new GsiConfig(
                CassandraConfig.defaults(), ConsistencyConfig.defaults(), QueueConfig.defaults(), HttpConfig.defaults());
    }

    /** This config with other contact points (from the command line). */
    public GsiConfig withContactPoints(List<ContactPoint> points) {
        return new GsiConfig(cassandra.withContactPoints(points), consistency, queue, http);
    }

    /** The project keyspace: the work queue and other tables of the project live there. */
    public String projectKeyspace() {
        return queue.keyspace();
    }
}
