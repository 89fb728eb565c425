package io.cassandragsi.repair.config;

import io.cassandragsi.schema.QueueLayout;
import java.time.Duration;

/**
 * {@code queue}: the work queue in the project keyspace. {@code shards} is used when {@code schema
 * apply} creates the queue table (the trigger reads it back from the table's comment). {@code
 * clockSkew} is how far apart the clocks of the nodes and the service may be: the safe time keeps
 * that far behind what the progress records show (docs/design.md section 7.10).
 */
public record QueueConfig(String keyspace, int shards, Duration pollInterval, Duration clockSkew) {
    public static final Duration DEFAULT_CLOCK_SKEW = Duration.ofMillis(100);

    public QueueConfig(String keyspace, int shards, Duration pollInterval) {
        this(keyspace, shards, pollInterval, DEFAULT_CLOCK_SKEW);
    }

    public static final int MAX_SHARDS = 1024;

    public static QueueConfig defaults() {
        return new QueueConfig(QueueLayout.DEFAULT_KEYSPACE, QueueLayout.DEFAULT_SHARDS, Duration.ofMillis(100));
    }

    /** The queue table settings to create the table with. */
    public QueueLayout.Settings settings() {
        return new QueueLayout.Settings(shards, QueueLayout.DEFAULT_BUCKET_SECONDS, QueueLayout.DEFAULT_TTL_SECONDS);
    }
}
