package io.cassandragsi.repair.store;

import java.time.Instant;

/**
 * The live service instances, by heartbeat rows with a TTL: each instance aims at its fair share
 * of the shards. {@link InstancesTable} in Cassandra; an in-memory twin in the tests.
 */
public interface Instances {
    /** Records that {@code owner} is alive for {@code ttlSeconds} more. */
    void heartbeat(String owner, Instant started, int ttlSeconds);

    /** How many instances are alive (at least 1: the caller). */
    int liveInstances();

    /** Records that {@code owner} stopped, so that the others take their fair share at their next round rather than after the TTL. */
    void leave(String owner);
}
