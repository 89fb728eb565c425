package io.cassandragsi.maintain;

import java.nio.ByteBuffer;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * One write maintenance makes to a rows table (docs/design.md sections 3 and 4), each at the
 * timestamp it names, so that it is idempotent. Keys are entry keys per index name.
 */
public sealed interface RowsWrite {
    List<ByteBuffer> rowKey();

    /** Records entry keys of {@code _keys} at {@code at} (microseconds, or 0). */
    record AddKeys(List<ByteBuffer> rowKey, Map<String, ? extends Collection<List<ByteBuffer>>> keys, long at) implements RowsWrite {}

    /** Forgets entry keys of {@code _keys}, each at the write time it was read with (it shadows that write only). */
    record ForgetKeys(List<ByteBuffer> rowKey, Map<String, Map<List<ByteBuffer>, Long>> keys) implements RowsWrite {}

    /** Records entry keys of per-version indexes ({@code _vkeys}) at {@code at}. */
    record AddVersionKeys(List<ByteBuffer> rowKey, Map<String, ? extends Collection<List<ByteBuffer>>> keys, long at) implements RowsWrite {}

    /** Forgets entry keys of per-version indexes, each at the write time it was read with. */
    record ForgetVersionKeys(List<ByteBuffer> rowKey, Map<String, Map<List<ByteBuffer>, Long>> keys) implements RowsWrite {}

    /** Raises {@code _w} of a versioned row to {@code ts}: a recompute writes index cells up to it. */
    record RecordRecompute(List<ByteBuffer> rowKey, long ts) implements RowsWrite {}
}
