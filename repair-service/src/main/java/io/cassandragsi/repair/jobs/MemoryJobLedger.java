package io.cassandragsi.repair.jobs;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/** The in-memory twin of {@link JobsTable}: same semantics (a re-recorded range replaces the earlier record). */
public final class MemoryJobLedger implements JobLedger {
    private final Map<String, Header> headers = new ConcurrentHashMap<>();
    private final Map<String, Map<Long, RangeDone>> ranges = new ConcurrentHashMap<>();

    @Override
    public Optional<Header> find(String id) {
        return Optional.ofNullable(headers.get(id));
    }

    @Override
    public void create(Header header) {
        headers.put(header.id(), header);
    }

    @Override
    public void state(String id, JobState state, String message) {
        headers.computeIfPresent(id, (k, h) -> h.with(state, message, Instant.now()));
    }

    @Override
    public List<RangeDone> finished(String id) {
        return new ArrayList<>(ranges.getOrDefault(id, Map.of()).values());
    }

    @Override
    public void finished(String id, RangeDone range) {
        ranges.computeIfAbsent(id, k -> java.util.Collections.synchronizedMap(new LinkedHashMap<>())).put(range.range().start(), range);
    }

    @Override
    public List<Header> headers() {
        return new ArrayList<>(headers.values());
    }
}
