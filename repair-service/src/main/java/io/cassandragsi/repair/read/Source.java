package io.cassandragsi.repair.read;

import java.util.List;
import java.util.UUID;

/**
 * Where a read's entries come from, chosen once by {@link ReadPlanner} (docs/design.md section
 * 8.2): the index table, or the buckets of the read's moments merged (one bucket is a merge of
 * one). Each has its own position in the page token ({@link PageToken.Resume}).
 */
sealed interface Source permits Source.IndexTable, Source.Buckets {
    /** The index table: every entry the index ever had. */
    record IndexTable() implements Source {}

    /** Buckets with valid seals, oldest first, each with its share of the read's time. */
    record Buckets(List<BucketMerge.Part> parts) implements Source {
        public Buckets {
            parts = List.copyOf(parts);
            if (parts.isEmpty()) {
                throw new IllegalArgumentException("a read through buckets reads one at least");
            }
        }

        /** The digest of these buckets' labels and seals that the read's tokens carry. */
        UUID seals() {
            return BucketMerge.seals(parts);
        }

        List<String> labels() {
            return parts.stream().map(BucketMerge.Part::label).toList();
        }
    }

    IndexTable INDEX_TABLE = new IndexTable();
}
