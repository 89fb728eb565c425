package io.cassandragsi.maintain;

import java.nio.ByteBuffer;
import java.util.UUID;

/**
 * One marker: a base write to maintain (docs/design.md section 5 for the flags). {@code ck} is the
 * row's clustering prefix in composite encoding; {@code tidMin} null names the whole partition.
 */
public record Marker(UUID id, String keyspace, String table, ByteBuffer pk, ByteBuffer ck, UUID tidMin, UUID tidMax, int flags) {}
