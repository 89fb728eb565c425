package io.cassandragsi.repair.queue;

import io.cassandragsi.maintain.MarkerGroup;
import io.cassandragsi.maintain.Outcome;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/** Repairs that record every marker they are handed and fail the ones a test says. */
final class FakeRepairs implements GroupRepairs {
    /** Every marker id handed over, once per attempt, in order. */
    final List<UUID> attempts = Collections.synchronizedList(new ArrayList<>());
    /** Marker ids whose next attempts fail, with how many. */
    final Map<UUID, Integer> failures = new HashMap<>();
    final Set<UUID> counted = new HashSet<>();
    /** Marker ids whose version a diff cannot find (deleted): RETRY, until the group comes to be recomputed. */
    final Set<UUID> invisible = new HashSet<>();
    /** Marker ids handed over in a group to be recomputed. */
    final List<UUID> recomputed = Collections.synchronizedList(new ArrayList<>());
    /** Marker ids handed over in a group that takes versions the base does not show for gone. */
    final List<UUID> unseenGone = Collections.synchronizedList(new ArrayList<>());

    /** Per call, the partition keys of its groups, in order. */
    final List<List<java.nio.ByteBuffer>> calls = Collections.synchronizedList(new ArrayList<>());

    @Override
    public synchronized Outcome[] repair(int shard, List<MarkerGroup> groups, boolean first) {
        calls.add(groups.stream().map(MarkerGroup::pk).toList());
        Outcome[] out = new Outcome[groups.size()];
        for (int i = 0; i < groups.size(); i++) {
            MarkerGroup g = groups.get(i);
            attempts.addAll(g.markerIds());
            boolean fail = false;
            for (UUID id : g.markerIds()) {
                Integer left = failures.get(id);
                if (left != null && left > 0) {
                    failures.put(id, left - 1);
                    fail = true;
                }
            }
            if (g.recompute()) {
                recomputed.addAll(g.markerIds());
            }
            if (g.unseenGone()) {
                unseenGone.addAll(g.markerIds());
            }
            boolean missing = !g.recompute() && g.markerIds().stream().anyMatch(invisible::contains);
            // a recompute is done with what was visible, and looks once more (Repairer)
            out[i] = fail ? null : missing ? Outcome.RETRY : g.recompute() ? Outcome.AGAIN : Outcome.DONE;
        }
        return out;
    }

    @Override
    public synchronized void counted(MarkerGroup g) {
        counted.addAll(g.markerIds());
    }

    long attemptsOf(UUID id) {
        synchronized (attempts) {
            return attempts.stream().filter(id::equals).count();
        }
    }
}
