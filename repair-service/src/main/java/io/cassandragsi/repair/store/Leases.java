package io.cassandragsi.repair.store;

/**
 * Shard leases: which instance works a shard. Rows with a TTL, taken, renewed and released with
 * lightweight transactions, so that at most one instance holds a shard at a time; an instance
 * that dies stops renewing and its leases expire. {@link LeasesTable} in Cassandra; an in-memory
 * twin in the tests.
 */
public interface Leases {
    /** Takes the lease of a free shard ({@code IF NOT EXISTS}); false when another instance holds it. */
    boolean acquire(int shard, String owner, int ttlSeconds);

    /** Extends a lease {@code owner} holds ({@code IF owner = ?}); false when it lost it. */
    boolean renew(int shard, String owner, int ttlSeconds);

    /** Gives a lease back, if {@code owner} still holds it. */
    void release(int shard, String owner);

    /** Who holds each shard's lease now, by shard (free shards are left out): status, and the safe time's reasons. */
    java.util.Map<Integer, String> owners();
}
