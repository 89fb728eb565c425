package io.cassandragsi.check;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.UUID;

/**
 * What an entry should hold, from its base row alone (docs/design.md sections 3 and 4). {@code
 * deleted} is null for per-version indexes, for entries the latest version still matches and for
 * every entry of an unversioned table; {@code proj} are the projected values, in the index's
 * projection order (nulls allowed).
 */
public record Expected(UUID tid, UUID deleted, List<ByteBuffer> proj) {
    public Expected {
        proj = Collections.unmodifiableList(new ArrayList<>(proj));
    }
}
