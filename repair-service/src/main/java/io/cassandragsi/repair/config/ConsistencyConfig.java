package io.cassandragsi.repair.config;

import com.datastax.oss.driver.api.core.DefaultConsistencyLevel;

/** {@code consistency}: the levels the repair service reads and writes at. */
public record ConsistencyConfig(
        DefaultConsistencyLevel read, DefaultConsistencyLevel write, DefaultConsistencyLevel serial) {

    public static ConsistencyConfig defaults() {
        return new ConsistencyConfig(
                DefaultConsistencyLevel.LOCAL_QUORUM, DefaultConsistencyLevel.LOCAL_QUORUM,
                DefaultConsistencyLevel.LOCAL_SERIAL);
    }
}
