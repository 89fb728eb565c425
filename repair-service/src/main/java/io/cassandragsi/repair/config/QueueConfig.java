package io.cassandragsi.repair.config;

import io.cassandragsi.schema.QueueLayout;
import java.time.Duration;

/**
 * {@code queue}: the work queue in the project keyspace. {@code shards} is used when {@code schema
 * apply} creates the queue table (the trigger reads it back from the table's comment).
 */
public record QueueConfig(String keyspace, int shards, Duration pollInterval) {
    public static final int MAX_SHARDS = 1024;

    public static QueueConfig defaults() {
        return new QueueConfig(QueueLayout.DEFAULT_KEYSPACE, QueueLayout.DEFAULT_SHARDS, Duration.ofMillis(100));
    }

    /** The queue table settings to create the table with. */
    public QueueLayout.Settings settings() {
        return new QueueLayout.Settings(shards, QueueLayout.DEFAULT_BUCKET_SECONDS, QueueLayout.DEFAULT_TTL_SECONDS);
    }
}
