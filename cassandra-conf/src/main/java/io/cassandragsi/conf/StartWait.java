package io.cassandragsi.conf;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * How long a starting node is waited for (docs/design.md section 10): as long as its
 * process lives and its logs advance. A node replaying a long commit log after kill -9, or joining
 * while writers load the cluster, can take minutes; a fixed deadline gave up on such nodes (and
 * stopped them). It is taken for stalled only when none of its logs grew for {@code stall}, and
 * given up on at {@code deadline} only when one was asked for ({@code --timeout}).
 */
final class StartWait {
    /** What the wait does next. */
    enum Verdict {
        /** Keep waiting: the node shows progress, or has not been silent long. */
        WAIT,
        /** No log grew for the stall bound: the node is stuck. */
        STALLED,
        /** The bound the caller asked for passed; the node may still be starting. */
        TIMED_OUT
    }

    private final Duration stall;
    private final Instant deadline;
    private long lastSize = -1;
    private Instant lastProgress;

    /**
     * @param stall how long no log may grow before the node is taken for stuck
     * @param timeout a bound on the whole wait, or null: none
     */
    StartWait(Duration stall, Duration timeout, Instant start) {
        this.stall = stall;
        this.deadline = timeout == null ? null : start.plus(timeout);
        this.lastProgress = start;
    }

    /** The verdict at {@code now}, given the node's logs' total size then (any growth is progress). Pure but for its own memory. */
    Verdict observe(long logBytes, Instant now) {
        if (logBytes != lastSize) {
            lastSize = logBytes;
            lastProgress = now;
        }
        if (deadline != null && now.isAfter(deadline)) {
            return Verdict.TIMED_OUT;
        }
        return Duration.between(lastProgress, now).compareTo(stall) > 0 ? Verdict.STALLED : Verdict.WAIT;
    }

    /** How long the node has shown no progress at {@code now}. */
    Duration silentFor(Instant now) {
        return Duration.between(lastProgress, now);
    }

    /** The total size of the node's logs: system.log, debug.log, stdout.log (absent ones count 0). */
    static long logBytes(NodeSpec node) {
        long total = 0;
        for (Path p : List.of(node.systemLog(), node.logsDir().resolve("debug.log"), node.stdoutLog())) {
            try {
                total += Files.size(p);
            } catch (IOException e) {
                // not written yet
            }
        }
        return total;
    }
}
