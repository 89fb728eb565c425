package io.cassandragsi.repair.config;

import java.util.List;

/**
 * The repair service's configuration, in typed sections (read by {@link ConfigLoader}). The
 * defaults connect to a local node without credentials.
 */
public record GsiConfig(
        CassandraConfig cassandra, ConsistencyConfig consistency, QueueConfig queue, HttpConfig http, AntiEntropyConfig antiEntropy) {

    /** With the default anti-entropy. */
    public GsiConfig(CassandraConfig cassandra, ConsistencyConfig consistency, QueueConfig queue, HttpConfig http) {
        this(cassandra, consistency, queue, http, AntiEntropyConfig.defaults());
    }

    public static GsiConfig defaults() {
        return new GsiConfig(
                CassandraConfig.defaults(), ConsistencyConfig.defaults(), QueueConfig.defaults(), HttpConfig.defaults());
    }

    /** This config with other contact points (from the command line). */
    public GsiConfig withContactPoints(List<ContactPoint> points) {
        return new GsiConfig(cassandra.withContactPoints(points), consistency, queue, http, antiEntropy);
    }

    /** This config with another anti-entropy. */
    public GsiConfig withAntiEntropy(AntiEntropyConfig a) {
        return new GsiConfig(cassandra, consistency, queue, http, a);
    }

    /** The project keyspace: the work queue and other tables of the project live there. */
    public String projectKeyspace() {
        return queue.keyspace();
    }
}
