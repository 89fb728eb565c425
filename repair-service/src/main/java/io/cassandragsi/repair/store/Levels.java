package io.cassandragsi.repair.store;

import com.datastax.oss.driver.api.core.ConsistencyLevel;

/** The consistency levels of the service's reads, conditional reads and writes (config {@code consistency}). */
public record Levels(ConsistencyLevel read, ConsistencyLevel serial, ConsistencyLevel write) {}
