package io.cassandragsi.maintain;

import java.util.List;

/** The records of every row of a partition, and the newest range or partition delete seen (or Long.MIN_VALUE). */
public record PartitionRecords(List<RowRecord> rows, long partitionWritten) {}
